package report_test

import (
	"encoding/json"
	"fmt"
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

// The rules tune-bnn.toml and tune-paper.toml declare, applied to their
// committed results, choose exactly the settings that Table 1's and
// Fig. 2(a)'s arms run with: per kind, the per-start choices are the
// same-start arms (model: *-tuned / mmdfw-stein; trained: *-trained), the
// final choice the fair arm, and tune-paper's choice the paper arm. Keys
// that shape only the run's length or its recording (iterations: the
// budget stops the tuning runs, fig2a's 2,000 iterations are that budget;
// record_every) are left out of the comparison.
func TestTuneBNNChoicesAreTheArms(t *testing.T) {
	const results = "../../results"
	for _, id := range []string{"tune-bnn", "tune-paper", "table1", "fig2a"} {
		if _, err := os.Stat(results + "/full/" + id); err != nil {
			t.Skipf("no committed results/full/%s to check (%v)", id, err)
		}
	}
	files := []string{"../../experiments/tune-bnn.toml", "../../experiments/tune-paper.toml", "../../experiments/table1.toml", "../../experiments/fig2a.toml"}
	res, err := repro.LoadResults(repro.NewRegistry(), files, "full", results)
	if err != nil {
		t.Fatal(err)
	}
	settingsOf := func(exp, method string) map[string]any {
		for _, c := range report.Done(res.Experiment(exp)) {
			if c.Prov.Method == method {
				b, err := json.Marshal(c.Prov.Settings)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				delete(m, "iterations")
				delete(m, "record_every")
				return m
			}
		}
		return nil
	}
	// check compares the tuning configuration method of experiment tune
	// with the arms (experiment/method) it is chosen for.
	check := func(what, tune, method string, arms ...string) {
		got := settingsOf(tune, method)
		for _, arm := range arms {
			exp, m, _ := strings.Cut(arm, "/")
			want := settingsOf(exp, m)
			if want == nil {
				t.Errorf("%s has no finished cell", arm)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: chose %s %v; %s runs with %v", what, method, got, arm, want)
			}
		}
	}
	// Per kind: the arms of the model start, the trained start, and the
	// fair arm (the final choice).
	arms := map[string][3][]string{
		"svgd":  {{"table1/svgd-tuned", "fig2a/svgd-tuned"}, {"table1/svgd-trained", "fig2a/svgd-trained"}, {"table1/svgd-trained", "fig2a/svgd-trained"}},
		"mmdfw": {{"table1/mmdfw-model-tuned", "fig2a/mmdfw-stein"}, {"table1/mmdfw-trained", "fig2a/mmdfw-trained"}, {"table1/mmdfw-trained", "fig2a/mmdfw-trained"}},
	}
	seen := 0
	for _, g := range report.TuningGrids(res, "tune-bnn") {
		if g.Across == nil {
			t.Fatalf("tune-bnn grid of kind %s is not chosen across the datasets", g.Kind)
		}
		want, ok := arms[g.Kind]
		if !ok {
			t.Errorf("tune-bnn chooses for kind %s, which no arm runs", g.Kind)
			continue
		}
		seen++
		if strings.Join(g.Across.Groups, " ") != "model trained" || len(g.Across.Datasets) != 9 {
			t.Errorf("kind %s: starts %q over %d datasets, want model and trained over 9", g.Kind, g.Across.Groups, len(g.Across.Datasets))
			continue
		}
		for j, grp := range g.Across.Groups {
			i := g.Across.PerGroup[j]
			if i < 0 {
				t.Errorf("kind %s, start %s: none chosen", g.Kind, grp)
				continue
			}
			check(fmt.Sprintf("kind %s, start %s (mean rank %.3f; %s)", g.Kind, grp, g.Across.MeanRank[i], g.Across.PerReason[j]), "tune-bnn", g.Configs[i].Method, want[j]...)
		}
		if g.Chosen < 0 {
			t.Errorf("kind %s: no final choice", g.Kind)
			continue
		}
		check(fmt.Sprintf("kind %s, fair arm (final mean ranks %v)", g.Kind, g.Across.FinalMean), "tune-bnn", g.Configs[g.Chosen].Method, want[2]...)
	}
	if seen != len(arms) {
		t.Errorf("%d tune-bnn kinds matched to arms, want %d", seen, len(arms))
	}
	grids := report.TuningGrids(res, "tune-paper")
	if len(grids) != 1 || grids[0].Across == nil || grids[0].Chosen < 0 {
		t.Fatalf("tune-paper: grids %+v, want one choice across the datasets", grids)
	}
	g := grids[0]
	check(fmt.Sprintf("tune-paper (mean ranks %v)", g.Across.MeanRank), "tune-paper", g.Configs[g.Chosen].Method, "table1/mmdfw", "fig2a/mmdfw")
}
