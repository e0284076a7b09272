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
	res.DescribeKinds(reg.Kinds())
	res.Checks = reg.Checks()
	return res
}

// goodTree loads the tree of reporttest.GoodTree with its figures and the
// metric meanings of reporttest.Meanings, the kinds' traits of
// reporttest.Kinds and the run-time checks of reporttest.Checks.
func goodTree(t *testing.T) *Results {
	t.Helper()
	dir, figs := reporttest.GoodTree(t)
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.Figures = figs
	res.Metrics = reporttest.Meanings
	res.DescribeKinds(reporttest.Kinds)
	res.Checks = reporttest.Checks
	return res
}

// memCell is a finished cell held in memory, with its toy kind's traits.
func memCell(exp, method, kind, ds string, split, n int, rows ...Row) *Cell {
	return &Cell{Prov: reporttest.Prov(exp, method, kind, ds, split, n), Rows: rows, Traits: reporttest.Kinds[kind]}
}
