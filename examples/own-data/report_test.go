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
