package report

import (
	"slices"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// A particle cell whose set checks did not run is unchecked: by its
// record, or, made before the record, by the missing values of a set it
// diagnosed; an HMC cell and a cell without set diagnostics are not.
func TestPDBUncheckedSets(t *testing.T) {
	cell := func(kind string, d *harness.Diagnostics) *Cell {
		return &Cell{Prov: &harness.Provenance{Kind: kind, Diagnostics: d}, Traits: pdbKinds[kind]}
	}
	vals := func(names ...string) map[string]harness.DiagValue {
		m := map[string]harness.DiagValue{}
		for _, n := range names {
			m[n] = 1
		}
		return m
	}
	for _, c := range []struct {
		name string
		c    *Cell
		want []string
	}{
		{"recorded", cell("svgd", &harness.Diagnostics{Values: vals("kish_ess"),
			Unchecked: []harness.DiagFlag{{Code: "stein", Reason: "r"}, {Code: "mode", Reason: "r"}}}), []string{"stein", "mode"}},
		{"recorded narrow only", cell("mmdfw", &harness.Diagnostics{Values: vals("kish_ess", "stein_spread", "probes"),
			Unchecked: []harness.DiagFlag{{Code: "narrow", Reason: "r"}}}), nil},
		{"inferred", cell("sgld", &harness.Diagnostics{Values: vals("kish_ess", "iterations")}), []string{"stein", "mode"}},
		{"inferred mode", cell("mmdfw", &harness.Diagnostics{Values: vals("kish_ess", "stein_spread")}), []string{"mode"}},
		{"checked", cell("sp", &harness.Diagnostics{Values: vals("kish_ess", "stein_spread", "probes")}), nil},
		{"no set diagnostics", cell("svgd", nil), nil},
		{"hmc", cell("hmc", &harness.Diagnostics{Values: vals("kish_ess")}), nil},
	} {
		if got := pdbUnchecked(c.c); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
