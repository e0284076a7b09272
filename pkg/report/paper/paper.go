package paper

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/report"
)

// Name is the name the paper's experiment files give the plug-in in their
// report key.
const Name = "paper"

// Table1 is the id of the experiment of the paper's Table 1, whose table
// the plug-in writes into the report and, as table1.md and table1.csv,
// beside the figures.
const Table1 = "table1"

// Plugin presents the paper's experiments in the report. Its zero value is
// ready to use.
type Plugin struct{}

var _ report.Plugin = Plugin{}

// Name returns Name.
func (Plugin) Name() string { return Name }

// Experiments returns the experiments of res whose files name the plug-in.
func (Plugin) Experiments(res *report.Results) []string { return report.Declares(res, Name) }

// Head returns the paper's title and citation; deviations are from the
// paper.
func (Plugin) Head(*report.Results) report.Head {
	return report.Head{
		Title:   "Reproduction report",
		Lead:    "Futami, Cui, Sato, Sugiyama, \"Bayesian posterior approximation via greedy particle optimization\" (AAAI 2019)",
		Against: "the paper",
		Claims:  true,
		Others:  "Experiments that are not the paper's (datasets of one's own, for example); no claim rests on them. ",
	}
}

// Sections writes the verdict table, the practitioner's table, each claim
// with its evidence and verdict, Table 1 and the SVGD anchor.
func (Plugin) Sections(b *strings.Builder, res *report.Results, opts report.Options) {
	claims := Claims(res)
	pooled := ClaimResults(res)
	WriteVerdicts(b, res, claims, pooled...)
	b.WriteString(report.DecisionLink(opts, "Report"))
	if len(Practice(res)) > 0 {
		WritePractice(b, res)
		b.WriteString(report.DecisionLink(opts, "Starts as a factor, and start-only baselines"))
	}
	WriteSharedStarts(b, res)
	for i := range claims {
		claims[i].Pooled = sectionResults(pooled, claims[i].Number)
		WriteClaim(b, res, &claims[i], opts)
	}
	if len(res.Experiment(Table1)) > 0 {
		b.WriteString("## Table 1\n\n")
		b.WriteString(report.DecisionLink(opts, "Closed-form floors"))
		b.WriteString(MakeTable(res, Table1).Markdown())
		b.WriteString("\n")
	}
	if len(AnchorTable(res)) > 0 {
		WriteAnchor(b, res)
		b.WriteString(report.DecisionLink(opts, "The SVGD anchor (experiments/svgd-anchor.toml)"))
	}
}

// Plot writes Table 1 as table1.md and table1.csv, the SVGD anchor's
// table as svgd-anchor.csv and the forest plot of each pooled claim
// result (ClaimResult.Forest, report.WriteForest) as
// claim-<id>-<protocol>.png, .svg and .pdf into dir, each when res holds
// its results.
func (Plugin) Plot(res *report.Results, dir string) ([]string, error) {
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
	if len(res.Experiment(Table1)) > 0 {
		t := MakeTable(res, Table1)
		write(Table1+".md", []byte(t.Markdown()))
		write(Table1+".csv", t.CSV())
	}
	if rows := AnchorTable(res); len(rows) > 0 {
		write(AnchorExperiment+".csv", AnchorCSV(rows))
	}
	for _, r := range ClaimResults(res) {
		if len(r.PerDataset) == 0 {
			continue // no contrast of the claim in res
		}
		fs, err := report.WriteForest(dir, r.ForestName(), r.Forest())
		files = append(files, fs...)
		errs = append(errs, err)
	}
	return files, errors.Join(errs...)
}
