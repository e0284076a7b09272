package report

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// The synthetic results trees and their experiment files are the fixtures
// of pkg/report/internal/reporttest, shared with the paper's plug-in; here
// they are loaded into Results.

// writeTree runs the experiments srcs (TOML) with the curves of f under
// dir and returns the loaded results.
func writeTree(t testing.TB, dir string, f reporttest.CurveFunc, srcs ...string) *Results {
	t.Helper()
	reg, exps := reporttest.Write(t, dir, f, srcs...)
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exps {
		res.Declare(e)
	}
	res.Metrics = reg.Meanings()
	return res
}

// goodTree loads the tree of reporttest.GoodTree with its figures and the
// metric meanings of reporttest.Meanings.
func goodTree(t *testing.T) *Results {
	t.Helper()
	dir, figs := reporttest.GoodTree(t)
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.Figures = figs
	res.Metrics = reporttest.Meanings
	return res
}

// memCell is a finished cell held in memory.
func memCell(exp, method, kind, ds string, split, n int, rows ...Row) *Cell {
	return &Cell{Prov: reporttest.Prov(exp, method, kind, ds, split, n), Rows: rows}
}

// The fixtures name the own-kernel statistic and the greedy kinds without
// importing the core: they must agree with it.
func TestFixturesAgreeWithCore(t *testing.T) {
	if reporttest.KernelMMD2 != KernelMMD2 {
		t.Errorf("reporttest.KernelMMD2 = %q, want %q", reporttest.KernelMMD2, KernelMMD2)
	}
	if d := reporttest.Meanings[KernelMMD2]; d.Label == "" {
		t.Errorf("reporttest.Meanings has no meaning for %q", KernelMMD2)
	}
	for kind, want := range map[string]bool{"mmdfw": true, "sp": true, "svgd": false, "sgld": false, "boom": false} {
		if IsGreedy(kind) != want || reporttest.Greedy(kind) != want {
			t.Errorf("kind %q: IsGreedy %t, reporttest.Greedy %t, want %t", kind, IsGreedy(kind), reporttest.Greedy(kind), want)
		}
	}
}
