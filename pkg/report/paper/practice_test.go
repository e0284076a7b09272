package paper

import (
	"math"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// practiceCell is a Table 1 cell of one snapshot.
func practiceCell(method string, split int, rmse, ll float64) *report.Cell {
	return memCell("table1", method, "start", "boston", split, 1,
		report.Row{Step: 1, GradEvals: 10, Metric: "dev_rmse", Value: rmse},
		report.Row{Step: 1, GradEvals: 10, Metric: "rmse", Value: rmse},
		report.Row{Step: 1, GradEvals: 10, Metric: "test_ll", Value: ll})
}

// The practitioner's table names the arm with the best mean and its
// paired advantage over the runner-up: the ensemble, 2 % better in RMSE on
// every split (ln 1.02 with no spread), is clearly best; in test LL two
// arms tie within the noise.
func TestPractice(t *testing.T) {
	var cells []*report.Cell
	for s := 0; s < 3; s++ {
		e := 0.1 * float64(s)
		cells = append(cells,
			practiceCell("start-trained", s, 3+e, -2.9),
			practiceCell("start-ensemble", s, 2.5+e, -2.5+[]float64{0.1, -0.1, 0.05}[s]),
			practiceCell("mmdfw-trained", s, (2.5+e)*1.02, -2.5),
			practiceCell("svgd-trained", s, 2.9+e, -2.7))
	}
	res := &report.Results{Metrics: reporttest.Meanings, Cells: cells}
	rows := Practice(res)
	if len(rows) != 1 {
		t.Fatalf("%d rows", len(rows))
	}
	r := rows[0].Cells["rmse"]
	if PracticeArms[r.Winner].Method != "start-ensemble" || PracticeArms[r.RunnerUp].Method != "mmdfw-trained" ||
		math.Abs(r.Margin.Mean-math.Log(1.02)) > 1e-12 || r.Margin.N != 3 || !r.Clear() {
		t.Errorf("rmse: %+v", r)
	}
	l := rows[0].Cells["test_ll"]
	if PracticeArms[l.Winner].Method != "start-ensemble" || PracticeArms[l.RunnerUp].Method != "mmdfw-trained" || l.Clear() {
		t.Errorf("test_ll: %+v", l)
	}
	md := PracticeMarkdown(rows)
	for _, want := range []string{"| **2.6** |", "deep ensemble, 1.020 [1.020, 1.020] over MMD-FW |", "over MMD-FW: a tie within the noise |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
	if s := PracticeSentence(rows); !strings.Contains(s, "of 1 data sets is that of the deep ensemble on 1 (1 clearly)") {
		t.Errorf("sentence %q", s)
	}
}
