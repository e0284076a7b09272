package report_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// notes is a plug-in of one's own: it presents the experiments whose files
// say report = ["notes"] with a section of its own, and keeps the generic
// head.
type notes struct{}

func (notes) Name() string                                   { return "notes" }
func (notes) Experiments(res *report.Results) []string       { return report.Declares(res, "notes") }
func (notes) Head(*report.Results) report.Head               { return report.Head{} }
func (notes) Plot(*report.Results, string) ([]string, error) { return nil, nil }
func (notes) Sections(b *strings.Builder, res *report.Results, _ report.Options) {
	fmt.Fprintf(b, "## Notes\n\nPresented here: %s.\n\n", strings.Join(report.Declares(res, "notes"), ", "))
}

// A section provider of one's own takes part in the report where an
// experiment file names it in its top-level report key.
func ExamplePlugin() {
	res := &report.Results{Dir: "results", Declared: map[string]report.Declaration{
		"mine": {Report: []string{"notes"}}, "other": {},
	}}
	var b strings.Builder
	if err := report.Write(&b, res, report.Options{Plugins: []report.Plugin{notes{}}}); err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "Presented") {
			fmt.Println(line)
		}
	}
	// Output:
	// # Report
	// ## Deviations
	// ## Notes
	// Presented here: mine.
	// ## HMC reference diagnostics
}
