package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mmdfw/mmdfw/internal/report"
)

func init() {
	register(&command{
		name:    "report",
		summary: "write REPORT.md: deviations, the paper's claims checked against cached results",
		run:     reportCmd,
	})
}

func reportCmd(args []string) error {
	fs := newFlagSet("report",
		"usage: repro report [--results DIR] [--figures DIR] [--out REPORT.md]",
		"\nWrites the reproduction report from the cached results: the deviations from",
		"the paper, then each of the paper's claims with its measured evidence and a",
		"computed verdict, Table 1 and the HMC reference diagnostics. It draws the",
		"figures it links to (as repro plot does) and never computes results.")
	results := fs.String("results", "results", "results directory")
	figures := fs.String("figures", "figures", "directory of the figures")
	out := fs.String("out", "REPORT.md", "report file")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	res, err := report.Load(*results)
	if err != nil {
		return err
	}
	if _, err := report.Plot(res, *figures); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(*out), *figures)
	if err != nil {
		rel, _ = filepath.Abs(*figures)
	}
	var b bytes.Buffer
	if err := report.Write(&b, res, report.Options{Figures: filepath.ToSlash(rel), FigureDir: *figures}); err != nil {
		return err
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stdout, *out)
	return nil
}
