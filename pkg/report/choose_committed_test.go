package report_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/repro"
)

// The rules tune-covertype.toml declares, applied to its committed
// results, choose exactly the settings that fig1a's and fig1b's *-tuned
// arms run with: every rule's choice for every kind is compared, setting
// by setting, with the arm that the rule serves.
func TestTuneCovertypeChoicesAreTheTunedArms(t *testing.T) {
	const results = "../../results"
	if _, err := os.Stat(results + "/full/tune-covertype"); err != nil {
		t.Skipf("no committed results/full/tune-covertype to check (%v)", err)
	}
	files := []string{"../../experiments/tune-covertype.toml", "../../experiments/fig1a.toml", "../../experiments/fig1b.toml"}
	res, err := repro.LoadResults(repro.NewRegistry(), files, "full", results)
	if err != nil {
		t.Fatal(err)
	}
	// The arm each rule's choice runs as, per kind: experiment/method.
	arms := map[string]map[string]string{
		"fig1b":    {"mmdfw": "fig1b/mmdfw-tuned", "svgd": "fig1b/svgd-tuned", "sp": "fig1b/sp-tuned"},
		"fig1b-bq": {"mmdfw": "fig1b/mmdfw-tuned-bq"},
		"fig1a":    {"mmdfw": "fig1a/mmdfw-tuned", "svgd": "fig1a/svgd-tuned", "sp": "fig1a/sp-tuned", "sgld": "fig1a/sgld-tuned"},
	}
	settingsOf := func(exp, method string) map[string]any {
		for _, c := range report.Done(res.Experiment(exp)) {
			if c.Prov.Method == method {
				// Through JSON, so that numbers compare as decoded.
				b, err := json.Marshal(c.Prov.Settings)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				return m
			}
		}
		return nil
	}
	seen := 0
	for _, g := range report.TuningGrids(res, "tune-covertype") {
		if g.Rule == nil {
			t.Fatalf("grid of kind %s chosen by the generic rule: tune-covertype declares its rules", g.Kind)
		}
		arm, ok := arms[g.Rule.Name][g.Kind]
		if !ok {
			t.Errorf("rule %s chooses for kind %s, which no *-tuned arm runs", g.Rule.Name, g.Kind)
			continue
		}
		seen++
		if g.Chosen < 0 {
			t.Errorf("rule %s, kind %s: none chosen (%s)", g.Rule.Name, g.Kind, g.Unranked)
			continue
		}
		c := g.Configs[g.Chosen]
		exp, method, _ := strings.Cut(arm, "/")
		got, want := settingsOf("tune-covertype", c.Method), settingsOf(exp, method)
		if want == nil {
			t.Errorf("%s has no finished cell", arm)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rule %s, kind %s: chose %s %v (%s); %s runs with %v", g.Rule.Name, g.Kind, c.Method, got, g.Reason, arm, want)
		}
	}
	if n := len(arms["fig1b"]) + len(arms["fig1b-bq"]) + len(arms["fig1a"]); seen != n {
		t.Errorf("%d rule grids matched to arms, want %d", seen, n)
	}
}
