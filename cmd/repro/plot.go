package main

import (
	"flag"
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
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: repro plot [--results DIR] [--figures DIR]")
		fmt.Fprintln(fs.Output(), "\nDraws the figures of every experiment found under the results directory as")
		fmt.Fprintln(fs.Output(), "PNG, SVG and PDF, and Table 1 as Markdown and CSV. It reads the cached")
		fmt.Fprintln(fs.Output(), "results only: cells that have not run are simply absent from the figures.")
		fs.PrintDefaults()
	}
	results := fs.String("results", "results", "results directory")
	figures := fs.String("figures", "figures", "output directory of the figures")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
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
