package paper

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// TestSummary checks the one-page summary on the fixture tree: at most
// SummaryMaxLines lines, every claim sentence at most SentenceMaxWords
// words with no nested parentheses, the outcome at most OutcomeMaxWords
// words, and every verdict of its table the verdict the claim's own
// section prints for the same claim and protocol.
func TestSummary(t *testing.T) {
	res := goodTree(t)
	rs := ClaimResults(res)
	if len(rs) == 0 {
		t.Fatal("no claim results on the fixture tree")
	}
	var b strings.Builder
	WriteSummary(&b, res, rs, report.Options{Figures: "figures"})
	sum := b.String()
	if n := strings.Count(sum, "\n"); n > SummaryMaxLines {
		t.Errorf("summary of %d lines, want at most %d:\n%s", n, SummaryMaxLines, sum)
	}
	nested := regexp.MustCompile(`\([^()]*\(`)
	var sentences int
	for _, line := range strings.Split(sum, "\n") {
		s, ok := strings.CutPrefix(line, "- Claim ")
		if !ok {
			continue
		}
		sentences++
		if n := len(strings.Fields(s)) + 1; n > SentenceMaxWords {
			t.Errorf("%d words, want at most %d: %s", n, SentenceMaxWords, line)
		}
		if nested.MatchString(s) {
			t.Errorf("nested parentheses: %s", line)
		}
	}
	// The outcome paragraph holds the primary claims' sentences; the
	// bullets the others'.
	for _, line := range strings.Split(OutcomeParagraph(res, rs), ". ") {
		if strings.HasPrefix(line, "Claim ") {
			sentences++
			if n := len(strings.Fields(line)); n > SentenceMaxWords {
				t.Errorf("%d words, want at most %d: %s", n, SentenceMaxWords, line)
			}
			if nested.MatchString(line) {
				t.Errorf("nested parentheses: %s", line)
			}
		}
	}
	if sentences == 0 {
		t.Error("no claim sentence")
	}
	if o := OutcomeParagraph(res, rs); len(strings.Fields(o)) > OutcomeMaxWords || o == "" {
		t.Errorf("outcome of %d words, want 1 to %d: %s", len(strings.Fields(o)), OutcomeMaxWords, o)
	}
	// The table's verdicts against the sections'.
	var sec strings.Builder
	for i := 1; i <= 5; i++ {
		WriteClaimPooled(&sec, rs, i)
	}
	row := regexp.MustCompile(`^\| ([^|]*) \| ([^|]+) \| [^|]* \| [^|]* \| \*\*([^*]+)\*\* \|$`)
	id := ""
	var rows int
	for _, line := range strings.Split(sum, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if c := strings.TrimSpace(m[1]); c != "" {
			id, _, _ = strings.Cut(c, ".")
		}
		rows++
		want := "**Claim " + id + ", " + m[2] + " protocol: " + m[3] + ".**"
		if !strings.Contains(sec.String(), want) {
			t.Errorf("summary row claim %s, %s: %s; the claim's section has no %q", id, m[2], m[3], want)
		}
	}
	if rows != len(rs) {
		t.Errorf("%d verdict rows, want %d", rows, len(rs))
	}
}
