package report

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
)

// paperDouble stands in for pkg/report/paper's plug-in in the tests of
// this package, which cannot import it (it imports this package): it
// writes the same sections and files, and presents the paper's experiment
// ids whether or not the fixtures declare them, as the report did before
// the paper became a plug-in. pkg/report/paper tests the plug-in itself.
type paperDouble struct{}

// withPaper is the plug-in list of the tests that read the paper's
// sections.
var withPaper = []Plugin{paperDouble{}}

func (paperDouble) Name() string { return "paper" }

func (paperDouble) Experiments(*Results) []string {
	return []string{"ablations", "fig1a", "fig1b", "fig2a", "fig2b", "rff", AnchorExperiment, "table1"}
}

func (paperDouble) Head(*Results) Head {
	return Head{Title: "Reproduction report", Lead: "The paper", Against: "the paper", Claims: true,
		Others: "Experiments that are not the paper's (datasets of one's own, for example); no claim rests on them. "}
}

func (paperDouble) Sections(b *strings.Builder, res *Results, opts Options) {
	claims := Claims(res)
	WriteVerdicts(b, res, claims)
	for i := range claims {
		WriteClaim(b, res, &claims[i], opts)
	}
	if len(res.Experiment("table1")) > 0 {
		b.WriteString("## Table 1\n\n")
		b.WriteString(MakeTable(res, "table1").Markdown())
		b.WriteString("\n")
	}
	WriteAnchor(b, res)
}

func (paperDouble) Plot(res *Results, dir string) ([]string, error) {
	var files []string
	var errs []error
	write := func(name string, b []byte) {
		path := filepath.Join(dir, name)
		err := atomicfile.Write(path, b, 0o644)
		if err == nil {
			files = append(files, path)
		}
		errs = append(errs, err)
	}
	if len(res.Experiment("table1")) > 0 {
		t := MakeTable(res, "table1")
		write("table1.md", []byte(t.Markdown()))
		write("table1.csv", t.CSV())
	}
	if rows := AnchorTable(res); len(rows) > 0 {
		write(AnchorExperiment+".csv", AnchorCSV(rows))
	}
	return files, errors.Join(errs...)
}
