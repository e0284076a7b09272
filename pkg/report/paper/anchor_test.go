package paper

import (
	"math"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// anchorCell is a finished cell of the anchor experiment with final rmse
// and test_ll values.
func anchorCell(kind, ds string, split int, rmse, ll float64) *report.Cell {
	return &report.Cell{
		Prov: &harness.Provenance{Experiment: AnchorExperiment, Method: kind, Kind: kind, Dataset: ds, Split: split, Status: harness.Done},
		Rows: []report.Row{{Step: 0, Metric: "rmse", Value: 99}, {Step: 0, Metric: "test_ll", Value: -99},
			{Step: 10, Metric: "rmse", Value: rmse}, {Step: 10, Metric: "test_ll", Value: ll}},
	}
}

// TestAnchorTableHandCase checks the anchor table on two Boston splits
// against a hand computation: RMSE 2.9 and 3.1 have mean 3.0 and standard
// error sd/√2 = 0.1; against the published 2.957 ± 0.099 the difference
// is 0.043/√(0.1² + 0.099²) = 0.3056. Test LL −2.4 and −2.6 give −2.5 ±
// 0.1, z = 0.004/√(0.1² + 0.029²) = 0.03842. The final rows are read,
// never the first; the OLS column is its mean.
func TestAnchorTableHandCase(t *testing.T) {
	res := &report.Results{Metrics: reporttest.Meanings, Cells: []*report.Cell{
		anchorCell(anchorKind, "bostonHousing", 0, 2.9, -2.4),
		anchorCell(anchorKind, "bostonHousing", 1, 3.1, -2.6),
		anchorCell("ols", "bostonHousing", 0, 4, -3),
		anchorCell("ols", "bostonHousing", 1, 5, -3),
	}}
	rows := AnchorTable(res)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	r := rows[0]
	near := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-4 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("rmse", r.RMSE, 3.0)
	near("rmse se", r.RMSESE, 0.1)
	near("z rmse", r.ZRMSE, 0.043/math.Sqrt(0.01+0.099*0.099))
	near("test ll", r.TestLL, -2.5)
	near("z ll", r.ZLL, 0.004/math.Sqrt(0.01+0.029*0.029))
	near("ols rmse", r.OLSRMSE, 4.5)
	if !math.IsNaN(r.ConstRMSE) || r.Splits != 2 {
		t.Errorf("constant %v, splits %d; want NaN, 2", r.ConstRMSE, r.Splits)
	}
	if a, l := r.Within(2); !a || !l {
		t.Errorf("within 2 se: %v %v, want both", a, l)
	}
	csv := string(AnchorCSV(rows))
	want := "dataset,rmse_mean,rmse_se,paper_rmse,paper_rmse_se,test_ll_mean,test_ll_se,paper_test_ll,paper_test_ll_se,splits\n"
	if !strings.HasPrefix(csv, want) || !strings.Contains(csv, ",2.957,0.099,") || !strings.HasSuffix(csv, ",-2.504,0.029,2\n") {
		t.Errorf("CSV:\n%s", csv)
	}
	if md := AnchorMarkdown(rows); !strings.Contains(md, "RMSE on 1 of 1 datasets, test LL on 1 of 1") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestZDiff checks the combined standard-error difference: equal values
// are 0, no standard error on either side with different values is ±Inf
// (outside any band), and a missing one is NaN.
func TestZDiff(t *testing.T) {
	if z := zDiff(1, 0, 1, 0); z != 0 {
		t.Errorf("equal: %v", z)
	}
	if z := zDiff(0.0078, 0.00015, 0.004, 0); math.Abs(z-25.33) > 0.01 {
		t.Errorf("naval: %v, want 25.33", z)
	}
	if z := zDiff(2, 0, 1, 0); !math.IsInf(z, 1) {
		t.Errorf("no se: %v, want +Inf", z)
	}
	if z := zDiff(2, 0.1, 1, math.NaN()); !math.IsNaN(z) {
		t.Errorf("missing se: %v, want NaN", z)
	}
}
