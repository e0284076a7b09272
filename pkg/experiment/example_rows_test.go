package experiment_test

import (
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/experiment"
	"github.com/mmdfw/mmdfw/pkg/harness"
)

// The rows that eval.rows = "validation" and "development" hold out of
// yacht's 277 training rows, and a tuning experiment that would read test
// rows, refused at the line of its metrics.
func ExampleValidationRows() {
	v := harness.Rows{Kind: harness.RowsValidation, Fraction: 0.2, Seed: 1}
	idx, _ := experiment.ValidationRows(v, "yacht", 0, 277)
	dev, _ := experiment.ValidationRows(harness.Rows{Kind: harness.RowsDevelopment}, "yacht", 0, 277)
	fmt.Printf("validation: %d rows; development: %d rows from row %d\n", len(idx), len(dev), dev[0])

	src := `id = "tune-x"
role = "tuning"
datasets = ["gauss2d"]
splits = [1]
[eval]
metrics = ["mmd2"]
[methods.svgd]
kind = "svgd"
`
	reg := harness.NewRegistry()
	experiment.Register(reg)
	_, err := harness.Load(reg, "tune-x.toml", []byte(src), "")
	fmt.Println(err)
	// Output:
	// validation: 55 rows; development: 28 rows from row 249
	// tune-x.toml:6: key eval.metrics: a tuning experiment must not read a reported split: metric "mmd2" would evaluate the test rows of split 1; set eval.rows = "validation" or "development", or use only splits ≥ 1000
}
