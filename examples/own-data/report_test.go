// Package owndata_test checks the report of the worked example of this
// folder: an experiment of one's own gets a report without a word of the
// paper the repository reproduces.
package owndata_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/repro"
)

// The quick profile of own-data.toml, run and reported through the door as
// the README's commands do: the report has the experiment's table and
// figures and no head, verdict, claim or deviation of the paper's, since
// the file names no report plug-in.
func TestOwnReport(t *testing.T) {
	dir := t.TempDir()
	files := []string{"own-data.toml"}
	reg := repro.NewRegistry()
	cells, err := repro.Load(reg, files, "quick")
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	r := repro.NewRunner(reg, repro.Options{Results: results, Jobs: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if sum, err := r.Run(context.Background(), cells); err != nil || sum.Done+sum.Cached != len(cells) {
		t.Fatalf("run: %+v, %v", sum, err)
	}
	out := filepath.Join(dir, "OWN.md")
	if err := repro.WriteReport(reg, files, "quick", results, filepath.Join(dir, "figures"), out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		"# Report\n\nComputed from the cached results in `" + results + "`; nothing is re-run.\n",
		"\n## Deviations\n\n- **own-data** was run under the `quick` profile (a reduced protocol: fewer splits, particles or iterations than the full profile).\n",
		"\n## Experiments\n\n", "\n### own-data\n\n| dataset | method | N | splits | accuracy | test_ll |\n",
		"| Own data (logistic) | mmdfw | 20 | 2 | ", "| Own data (logistic) | svgd | 20 | 2 | ",
		"![own-data-accuracy](figures/own-data-accuracy.png)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	low := strings.ToLower(text)
	for _, not := range []string{"paper", "claim", "verdict", "futami", "not measured here", "table 1", "## other experiments"} {
		if strings.Contains(low, not) {
			t.Errorf("report has %q:\n%s", not, text)
		}
	}
}

// The claim of claims.toml, reported as the README's command does: the
// report gains the section "Claims (claims.toml)" whose row gives the
// claim's pooled estimate, P(improvement) and verdict under the fair
// protocol, pooled over the quick profile's two splits of mmdfw against
// svgd-map (the arms own-data.toml declares for that protocol, both from
// the MAP), and still says no word of the paper. A claims file pooling an
// experiment without results is an error naming the file, line and key,
// and writes nothing.
func TestOwnClaims(t *testing.T) {
	dir := t.TempDir()
	files := []string{"own-data.toml"}
	reg := repro.NewRegistry()
	cells, err := repro.Load(reg, files, "quick")
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	r := repro.NewRunner(reg, repro.Options{Results: results, Jobs: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if sum, err := r.Run(context.Background(), cells); err != nil || sum.Done+sum.Cached != len(cells) {
		t.Fatalf("run: %+v, %v", sum, err)
	}
	out := filepath.Join(dir, "OWN.md")
	if err := repro.WriteReport(reg, files, "quick", results, filepath.Join(dir, "figures"), out, "claims.toml"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	row := regexp.MustCompile(`(?m)^\| own-ll \| MMD-FW's test log-likelihood is about SVGD's from the MAP \| fair \| equivalence, margin ±0\.05 \| ` +
		`([-+0-9.e]+) \[([-+0-9.e]+), ([-+0-9.e]+)\] \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \| \*\*(supported|contradicted|undecided)\*\* \|$`)
	m := row.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("report lacks the claim's verdict row:\n%s", text)
	}
	t.Logf("verdict row: %s", m[0])
	for _, want := range []string{
		"\n## Claims (claims.toml)\n\n",
		"| own-data Own data (logistic): mmdfw vs svgd-map, test LL, final at 1x | 2 | ",
		"**Claim own-ll, fair protocol: " + m[4] + ".**",
		"\n## Experiments\n\n", "\n### own-data\n\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(strings.ToLower(text), "paper") {
		t.Errorf("report mentions the paper:\n%s", text)
	}
	// The command line writes the same report with --claims.
	var stderr strings.Builder
	cmd := filepath.Join(dir, "CMD.md")
	if code := repro.Main(context.Background(), reg, []string{"report", "own-data.toml", "--profile", "quick", "--results", results,
		"--figures", filepath.Join(dir, "figures"), "--out", cmd, "--claims", "claims.toml"}, io.Discard, &stderr); code != 0 {
		t.Fatalf("repro report --claims: exit %d: %s", code, stderr.String())
	}
	if b, err := os.ReadFile(cmd); err != nil || string(b) != text {
		t.Errorf("repro report --claims wrote another report (%v):\n%s", err, b)
	}

	bad := filepath.Join(dir, "claims.toml")
	src, err := os.ReadFile("claims.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(string(src), `experiment = "own-data"`, `experiment = "own-dta"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(dir, "AGAIN.md")
	err = repro.WriteReport(reg, files, "quick", results, filepath.Join(dir, "figures2"), again, bad)
	if err == nil || !strings.Contains(err.Error(), bad+":20: key claim.own-ll.pool: experiment \"own-dta\" has no current result") {
		t.Errorf("a pooled experiment without results: %v", err)
	}
	if _, err := os.Stat(again); !os.IsNotExist(err) {
		t.Errorf("a report was written (%v)", err)
	}
}
