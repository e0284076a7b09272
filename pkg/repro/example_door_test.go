package repro_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mmdfw/mmdfw/pkg/repro"
)

// What the repro command does, step by step through the same calls: load
// the files, pick cells by index, run them, judge their cache state, then
// read the current results, draw them and write the report.
func ExampleLoadResults() {
	dir, err := os.MkdirTemp("", "repro-door")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "steps.toml")
	err = os.WriteFile(file, []byte(`id = "steps"
seed = 1
datasets = ["gauss2d"]
splits = [0, 1]
eval = { metrics = ["mmd2_exact"] }

[methods.svgd]
kind = "svgd"
particles = [10]
settings = { iterations = 50, step_size = 0.1 }
`), 0o644)
	if err != nil {
		log.Fatal(err)
	}
	reg := repro.NewRegistry()
	cells, err := repro.Load(reg, []string{file}, "")
	if err != nil {
		log.Fatal(err)
	}
	first, err := repro.Select(cells, "0") // repro run --cells 0
	if err != nil {
		log.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	r := repro.NewRunner(reg, repro.Options{Results: results, Jobs: 1})
	if _, err := r.Run(context.Background(), first); err != nil {
		log.Fatal(err)
	}
	for _, c := range cells { // repro list
		st, err := r.Status(c)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(c.ID, st.Status)
	}

	res, err := repro.LoadResults(reg, []string{file}, "", results) // repro plot, repro report
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("current:", len(res.Cells), "not run:", res.NotRun)
	fmt.Println("declare no figures:", repro.UndeclaredFigures(res), repro.FigureNames(res, "steps"))
	out := filepath.Join(dir, "REPORT.md")
	if err := repro.WriteResultsReport(res, filepath.Join(dir, "figures"), out); err != nil {
		log.Fatal(err)
	}
	_, err = os.Stat(out)
	fmt.Println("report written:", err == nil)
	// Output:
	// steps/svgd/gauss2d/s0/n10 done
	// steps/svgd/gauss2d/s1/n10 pending
	// current: 1 not run: [steps/svgd/gauss2d/s1/n10]
	// declare no figures: [steps] [steps-mmd2_exact]
	// report written: true
}
