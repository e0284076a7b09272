package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/mmdfw/mmdfw/internal/harness"
)

func init() {
	register(&command{
		name:    "run",
		summary: "run the cells of experiment files (cached cells are skipped)",
		run:     runCmd,
	})
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, which it returns.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// loadCells reads the experiment files under profile and lists their cells.
func loadCells(files []string, profile string) ([]*harness.Cell, error) {
	var exps []*harness.Experiment
	for _, f := range files {
		e, err := harness.LoadFile(harness.Default, f, profile)
		if err != nil {
			return nil, err
		}
		exps = append(exps, e)
	}
	return harness.Plan(exps), nil
}

func runCmd(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: repro run FILE... [--profile quick|full] [-j N] [--cells A-B] [--force] [--results DIR]")
		fmt.Fprintln(fs.Output(), "\nRuns every cell of the experiment files that is not cached under the results")
		fmt.Fprintln(fs.Output(), "directory. Interrupt with Ctrl-C: running cells stop at their next snapshot,")
		fmt.Fprintln(fs.Output(), "nothing half-written remains, and the next run resumes.")
		fs.PrintDefaults()
	}
	profile := fs.String("profile", "", "profile to apply: quick or full (default: the file's base settings)")
	jobs := fs.Int("j", runtime.NumCPU(), "cells run at once; each gets max(1, NumCPU/j) threads")
	cells := fs.String("cells", "", "run only the cells with these indices (as listed by repro list): A-B, A- or A")
	force := fs.Bool("force", false, "recompute cached cells")
	results := fs.String("results", "results", "results directory")
	keyRev := fs.Bool("key-revision", false, "make the VCS revision part of every cache key")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fs.Usage()
		return errUsage
	}
	all, err := loadCells(files, *profile)
	if err != nil {
		return err
	}
	sel, err := harness.Select(all, *cells)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := harness.NewRunner(harness.Default, harness.Options{
		Results: *results, Jobs: *jobs, Force: *force, KeyRevision: *keyRev,
		Progress: harness.TerminalStderr(),
	})
	sum, err := r.Run(ctx, sel)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, sum)
	return sum.Err()
}
