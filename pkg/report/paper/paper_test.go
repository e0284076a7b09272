package paper_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/paper"
)

// write returns the report on an empty results tree whose experiments
// declare what decl says, with the paper's plug-in passed.
func write(t *testing.T, decl map[string]report.Declaration) string {
	t.Helper()
	var b bytes.Buffer
	res := &report.Results{Dir: "results", Declared: decl}
	if err := report.Write(&b, res, report.Options{Figures: "figures", Plugins: []report.Plugin{paper.Plugin{}}}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The plug-in takes part where an experiment file names it, and only there.
func TestPluginTakesPartWhereDeclared(t *testing.T) {
	text := write(t, map[string]report.Declaration{"fig1b": {Report: []string{paper.Name}}, "own": {}})
	for _, want := range []string{
		"# Reproduction report\n\nFutami, Cui, Sato, Sugiyama, \"Bayesian posterior approximation via greedy particle optimization\" (AAAI 2019), checked against the cached results in `results`.",
		"\n## Deviations from the paper\n", "\n## Verdicts\n", "\n## Claim 1\n", "\n## Claim 5\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	// Each protocol on both cost axes for claims 1 and 5, each protocol
	// for claims 3 and 4, one row for claim 2.
	if n := strings.Count(text, "**not measured here**"); n != 13 {
		t.Errorf("%d verdicts not measured, want 13", n)
	}
	for name, decl := range map[string]map[string]report.Declaration{
		"no experiment":        nil,
		"no report key":        {"own": {}},
		"another plug-in only": {"own": {Report: []string{"mine"}}},
	} {
		text := write(t, decl)
		if !strings.HasPrefix(text, "# Report\n\nComputed from the cached results in `results`; nothing is re-run.\n") {
			t.Errorf("%s: head %q", name, text[:min(len(text), 120)])
		}
		if low := strings.ToLower(text); strings.Contains(low, "paper") || strings.Contains(low, "claim") {
			t.Errorf("%s: the report speaks of the paper:\n%s", name, text)
		}
	}
}

// The plug-in presents the experiments that name it: the report's other
// experiments leave them out.
func TestExperiments(t *testing.T) {
	res := &report.Results{Declared: map[string]report.Declaration{
		"table1": {Report: []string{paper.Name}}, "fig1a": {Report: []string{"mine", paper.Name}}, "own": {Report: []string{"mine"}}, "bnn-rate": {},
	}}
	if got := strings.Join(paper.Plugin{}.Experiments(res), " "); got != "fig1a table1" {
		t.Errorf("Experiments = %q, want fig1a table1", got)
	}
	files, err := paper.Plugin{}.Plot(res, t.TempDir())
	if err != nil || len(files) != 0 {
		t.Errorf("Plot without results: %v, %v", files, err)
	}
}
