package paper_test

import (
	"fmt"
	"log"
	"strings"

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
	// ## Deviations from the paper
	// ## Verdicts
	// ## Claim 1
	// ## Claim 2
	// ## Claim 3
	// ## Claim 4
	// ## Claim 5
	// ## HMC reference diagnostics
}
