package paper_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/paper"
)

// The report with the paper's plug-in passed: an experiment file naming
// it (report = ["paper"]) brings the paper's head, verdicts and claims; the
// headings of a report on no results yet.
func ExamplePlugin() {
	res := &report.Results{Dir: "results", Declared: map[string]report.Declaration{
		"fig1b": {Report: []string{paper.Name}},
	}}
	var b strings.Builder
	if err := report.Write(&b, res, report.Options{Figures: "figures", Plugins: []report.Plugin{paper.Plugin{}}}); err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "#") {
			fmt.Println(line)
		}
	}
	// Output:
	// # Reproduction report
	// ## Summary
	// ## Deviations from the paper
	// ## Verdicts
	// ## Claim 1
	// ## Claim 2
	// ## Claim 3
	// ## Claim 4
	// ## Claim 5
	// ## HMC reference diagnostics
}

func ExampleMakeTable() {
	cell := func(method, kind string, split int, rmse, ll float64) *report.Cell {
		p := &harness.Provenance{Experiment: "table1", Method: method, Kind: kind, Dataset: "boston", Split: split, Status: harness.Done}
		p.KeyDoc.Budget.Seconds = 60
		return &report.Cell{Prov: p, Rows: []report.Row{{Seconds: 60, Metric: "rmse", Value: rmse}, {Seconds: 60, Metric: "test_ll", Value: ll}}}
	}
	res := &report.Results{Cells: []*report.Cell{
		cell("mmdfw", "mmdfw", 0, 3.0, -2.6), cell("mmdfw", "mmdfw", 1, 3.4, -2.4),
		cell("svgd", "svgd", 0, 2.9, -2.5), cell("svgd", "svgd", 1, 3.1, -2.5),
		// A floor: ordinary least squares on the same splits.
		cell("ols", "ols", 0, 3.0, -2.6), cell("ols", "ols", 1, 3.2, -2.6),
	}}
	fmt.Print(paper.MakeTable(res, "table1").Markdown())
	// Output:
	// Wall-clock budget per cell: 60 s. Rows of kinds ols and constant are closed-form floors (ordinary least squares and the training mean, each with its Gaussian noise estimated on the training rows) that every BNN result must clear. Mean ± sd over splits (sample sd); RMSE lower is better, test LL higher is better.
	//
	// | dataset | method | RMSE | test LL | splits |
	// |---|---|---|---|---|
	// | boston | mmdfw | 3.20 ± 0.28 | -2.50 ± 0.14 | 2 |
	// | boston | svgd | 3.00 ± 0.14 | -2.5 | 2 |
	// | boston | ols | 3.10 ± 0.14 | -2.6 | 2 |
	//
	// **Not below OLS.** The BNN methods whose mean test RMSE over splits is not below the OLS row's (mean ≥ OLS's mean), per budget and dataset:
	//
	// - final: boston: mmdfw 3.2 (OLS 3.1)
}

func ExampleLevel() {
	// SVGD's RMSE 3.0 at its chosen snapshot on one split: the level is
	// 1 % of the error above it; an accuracy of 0.8 relaxes its error rate
	// 0.2 by 1 %.
	rmse := harness.MetricMeaning{Label: "test RMSE", Better: harness.LowerBetter, Reads: harness.ReadsEvaluation}
	accuracy := harness.MetricMeaning{Label: "test accuracy", Better: harness.HigherBetter, Fraction: true, Reads: harness.ReadsEvaluation}
	fmt.Printf("%.3f %.3f\n", paper.Level(rmse, 3.0), paper.Level(accuracy, 0.8))
	// Output:
	// 3.030 0.798
}

func ExamplePaired() {
	// Five splits on which one arm beats the other by about 0.005: the
	// mean, its 95 % paired-t interval and the sign test.
	p := paper.Paired([]float64{0.004, 0.006, 0.005, 0.007, 0.003})
	fmt.Printf("mean %.4f [%.4f, %.4f], %d+ %d− (p %.4f)\n", p.Mean, p.Lo, p.Hi, p.Pos, p.Neg, p.SignP)
	// A tolerance band of ±0.001: the interval lies above it.
	fmt.Println(paper.Band{Tau: 0.001}.Outcome(p))
	// Output:
	// mean 0.0050 [0.0030, 0.0070], 5+ 0− (p 0.0625)
	// better
}
