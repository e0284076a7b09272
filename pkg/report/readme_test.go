package report

import (
	"os"
	"strings"
	"testing"
)

// README.md's outcome paragraph is the one the report generates
// (OutcomeParagraph): the paragraph "**Outcome.** …" of the committed
// REPORT.md, whitespace aside, so that README says what the report
// computes. When the verdicts change, `make plots report` rewrites
// REPORT.md and this test asks for README's paragraph to be copied.
func TestREADMEOutcomeIsTheReports(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := os.ReadFile("../../REPORT.md")
	if err != nil {
		t.Fatal(err)
	}
	// The paragraph may span lines (Reflow breaks a long one).
	var want string
	if _, s, ok := strings.Cut(string(rep), "\n**Outcome.** "); ok {
		want, _, _ = strings.Cut(s, "\n\n")
	}
	if want == "" {
		t.Fatal("REPORT.md has no outcome paragraph")
	}
	_, para, ok := strings.Cut(string(readme), "**Outcome (REPORT.md).** ")
	if !ok {
		t.Fatal(`README.md has no paragraph "**Outcome (REPORT.md).**"`)
	}
	para, _, _ = strings.Cut(para, "\n\n")
	if got := strings.Join(strings.Fields(para), " "); got != strings.Join(strings.Fields(want), " ") {
		t.Errorf("README.md's outcome paragraph differs from REPORT.md's:\n%s\nwant:\n%s", got, want)
	}
}
