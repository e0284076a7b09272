package report_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
)

func ExampleRateFit() {
	// MMD² halving with every particle converges at rate ln 2 per particle.
	n := []float64{1, 2, 3, 4, 5}
	mmd2 := []float64{0.5, 0.25, 0.125, 0.0625, 0.03125}
	f := report.RateFit(n, mmd2)
	fmt.Printf("rate %.4f (ln 2 = %.4f), R² %.3f\n", -f.Slope, math.Ln2, f.R2)
	// Output:
	// rate 0.6931 (ln 2 = 0.6931), R² 1.000
}

func ExampleFiguresOf() {
	cell := func(split int) *report.Cell {
		p := &harness.Provenance{Experiment: "mine", Method: "svgd", Kind: "svgd", Dataset: "own", Split: split, N: 20, Status: harness.Done}
		return &report.Cell{Prov: p, Rows: []report.Row{{Seconds: 1, Metric: "accuracy", Value: 0.8}, {Seconds: 1, Metric: "test_ll", Value: -0.4}}}
	}
	res := &report.Results{Cells: []*report.Cell{cell(0), cell(1)}}
	// Without a declaration: the default figures, one per metric.
	fmt.Println(report.Undeclared(res), report.FigureNames(res, "mine"))
	// With one (as LoadCurrent records from the file's [[figures]]).
	res.Figures = map[string][]harness.Figure{"mine": {{ID: "mine-accuracy", X: harness.XSeconds, Y: harness.Metrics{"accuracy"}}}}
	fmt.Println(report.Undeclared(res), report.FigureNames(res, "mine"))
	// Output:
	// [mine] [mine-accuracy mine-test_ll]
	// [] [mine-accuracy]
}

func ExampleTuningGrids() {
	cell := func(method string, split int, step, rmse float64) *report.Cell {
		p := &harness.Provenance{Experiment: "tune-mine", Method: method, Kind: "svgd", Dataset: "own", Split: split, N: 20, Status: harness.Done,
			Settings: map[string]any{"step": step, "batch": 100.0}}
		return &report.Cell{Prov: p, Rows: []report.Row{{Step: 2000, Metric: "rmse", Value: rmse}}}
	}
	res := &report.Results{Cells: []*report.Cell{
		cell("svgd-slow", 1000, 1e-3, 1.3), cell("svgd-slow", 1001, 1e-3, 1.5),
		cell("svgd-fast", 1000, 5e-3, 1.1), cell("svgd-fast", 1001, 5e-3, 1.2),
	}}
	// As LoadCurrent records it from a file with role = "tuning", and
	// what rmse means from the registry that planned the results.
	res.Declared = map[string]report.Declaration{"tune-mine": {Role: harness.RoleTuning, Metrics: []string{"rmse"}}}
	res.Metrics = harness.MetricTable{"rmse": {Label: "{rows} RMSE", Better: harness.LowerBetter, Reads: harness.ReadsEvaluation}}
	for _, g := range report.TuningGrids(res, "tune-mine") {
		for i, c := range g.Configs {
			s := c.Stats["rmse"]
			fmt.Printf("%s %v rmse %s chosen %v\n", c.Method, c.Differs, report.FormatPM(s.Mean, s.SD), i == g.Chosen)
		}
	}
	// Output:
	// svgd-fast [step=0.005] rmse 1.150 ± 0.071 chosen true
	// svgd-slow [step=0.001] rmse 1.40 ± 0.14 chosen false
}

// A tuning experiment's declared rule: the highest mean validation
// log-likelihood over two splits; means within 0.001 nats tie and go to
// fewer gradient evaluations.
func ExampleTuningGrids_rule() {
	cell := func(method string, split int, grads int64, ll float64) *report.Cell {
		return &report.Cell{
			Prov: &harness.Provenance{Experiment: "tune", Method: method, Kind: "svgd", Dataset: "covertype", Split: split, N: 100,
				Status: harness.Done, Settings: map[string]any{"step": method}},
			Rows: []report.Row{{Step: 1, GradEvals: grads, Metric: "test_ll", Value: ll}},
		}
	}
	res := &report.Results{
		Metrics: harness.MetricTable{"test_ll": {Label: "log-likelihood", Better: harness.HigherBetter}},
		Cells: []*report.Cell{
			cell("a", 1000, 200, -0.3300), cell("a", 1001, 200, -0.3200),
			cell("b", 1000, 100, -0.3305), cell("b", 1001, 100, -0.3201),
			cell("c", 1000, 100, -0.4000), cell("c", 1001, 100, -0.3900),
		},
		Declared: map[string]report.Declaration{"tune": {Role: harness.RoleTuning, Metrics: []string{"test_ll"},
			Choose: []harness.Choose{{Name: "fig", Metric: "test_ll", TieAbsolute: 0.001, Then: []string{harness.ChooseGradEvals}}}}},
	}
	for _, g := range report.TuningGrids(res, "tune") {
		c := g.Configs[g.Chosen]
		fmt.Printf("rule %s, kind %s: %s, mean %.5f\n%s\n", g.Rule.Name, g.Kind, c.Method, c.Stats["test_ll"].Mean, g.Reason)
	}
	// Output:
	// rule fig, kind svgd: b, mean -0.32530
	// tied within 0.001 of the best mean test_ll: a, b; fewer grad_evals keeps b
}

// A rule that chooses one configuration per kind for every dataset: each
// dataset ranks the configurations of each start by validation RMSE, the
// smallest mean rank wins per start (ties to the first listed in the
// file), then the per-start choices are ranked the same way.
func ExampleTuningGrids_meanRank() {
	rmse := map[string][]float64{ // on datasets a, b, c
		"svgd-model-fast":   {1.0, 2.0, 3.0},
		"svgd-model-slow":   {2.0, 1.0, 3.0},
		"svgd-trained-fast": {0.9, 0.8, 2.5},
	}
	file := []string{"svgd-model-slow", "svgd-model-fast", "svgd-trained-fast"}
	var cells []*report.Cell
	for _, m := range file {
		init := strings.Split(m, "-")[1]
		for i, ds := range []string{"a", "b", "c"} {
			cells = append(cells, &report.Cell{
				Prov: &harness.Provenance{Experiment: "tune", Method: m, Kind: "svgd", Dataset: ds, N: 20,
					Status: harness.Done, Settings: map[string]any{"init": init, "step": m}},
				Rows: []report.Row{{Step: 1, GradEvals: 100, Metric: "rmse", Value: rmse[m][i]}},
			})
		}
	}
	res := &report.Results{
		Metrics: harness.MetricTable{"rmse": {Label: "RMSE", Better: harness.LowerBetter}},
		Cells:   cells,
		Declared: map[string]report.Declaration{"tune": {Role: harness.RoleTuning, Metrics: []string{"rmse"}, Methods: file,
			Choose: []harness.Choose{{Name: "all", Metric: "rmse", Across: harness.ChooseAcrossDatasets, Combine: harness.ChooseMeanRank,
				Per: harness.ChoosePerStart, Ties: harness.ChooseFileOrder}}}},
	}
	for _, g := range report.TuningGrids(res, "tune") {
		a := g.Across
		for i, c := range g.Configs {
			fmt.Printf("%s (%s): mean rank %.2f\n", c.Method, a.Group[i], a.MeanRank[i])
		}
		for j, grp := range a.Groups {
			fmt.Printf("per start %s: %s\n", grp, g.Configs[a.PerGroup[j]].Method)
		}
		fmt.Printf("chosen: %s\n%s\n", g.Configs[g.Chosen].Method, a.PerReason[0])
	}
	// Output:
	// svgd-model-slow (model): mean rank 1.50
	// svgd-model-fast (model): mean rank 1.50
	// svgd-trained-fast (trained): mean rank 1.00
	// per start model: svgd-model-slow
	// per start trained: svgd-trained-fast
	// chosen: svgd-trained-fast
	// mean rank 1.5 tied between svgd-model-slow, svgd-model-fast; the first listed in the file
}
