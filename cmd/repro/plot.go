package main

import (
	"fmt"
	"os"

	"github.com/mmdfw/mmdfw/internal/report"
)

func init() {
	register(&command{
		name:    "plot",
		summary: "draw every figure and Table 1 from cached results (never computes)",
		run:     plotCmd,
	})
}

func plotCmd(args []string) error {
	fs := newFlagSet("plot",
		"usage: repro plot [--results DIR] [--figures DIR]",
		"\nDraws the figures of every experiment found under the results directory as",
		"PNG, SVG and PDF, and Table 1 as Markdown and CSV. It reads the cached",
		"results only: cells that have not run are simply absent from the figures.")
	results := fs.String("results", "results", "results directory")
	figures := fs.String("figures", "figures", "output directory of the figures")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	res, err := report.Load(*results)
	if err != nil {
		return err
	}
	if len(res.Cells) == 0 {
		return fmt.Errorf("no results under %s: run 'repro run' first", *results)
	}
	files, err := report.Plot(res, *figures)
	for _, f := range files {
		fmt.Fprintln(os.Stdout, f)
	}
	return err
}
