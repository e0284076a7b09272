package report_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/mmdfw/mmdfw/pkg/report"
)

func ExampleWriteForest() {
	dir, err := os.MkdirTemp("", "forest")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	// Three data sets' paired contrasts of log RMSE and their pooled
	// estimate, against a margin of ±0.05; one data set is excluded and
	// one has a single split, so no interval.
	f := report.Forest{
		Title:  "Claim 5 (fair protocol, gradient evaluations): cannot decide",
		XLabel: "ln(SVGD's RMSE / MMD-FW's)",
		Band:   [2]float64{-0.05, 0.05},
		Rows: []report.ForestRow{
			{Label: "bostonHousing", Est: 0.04, Lo: -0.02, Hi: 0.1, N: 5},
			{Label: "concrete", Est: 0.12, Lo: 0.07, Hi: 0.17, N: 5},
			{Label: "energy", Est: 0.3, Lo: math.NaN(), Hi: math.NaN(), N: 1},
			{Label: "kin8nm", Est: -0.2, Lo: -0.4, Hi: 0, N: 5, Note: "the arms start differently: not counted"},
		},
		Pooled: &report.ForestRow{Est: 0.08, Lo: 0.03, Hi: 0.13, N: 11},
	}
	files, err := report.WriteForest(dir, "claim-5-fair", f)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range files {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// claim-5-fair.png
	// claim-5-fair.svg
	// claim-5-fair.pdf
}
