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
		name:    "prepare",
		summary: "compute the shared artefacts (references, MAP points) of experiment files",
		run:     prepareCmd,
	})
}

func prepareCmd(args []string) error {
	fs := flag.NewFlagSet("prepare", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: repro prepare FILE... [--profile quick|full] [-j N] [--results DIR]")
		fmt.Fprintln(fs.Output(), "\nComputes once, into the results directory, what the unfinished cells share:")
		fmt.Fprintln(fs.Output(), "each dataset split's problem (MAP points), its metrics and reference sample.")
		fmt.Fprintln(fs.Output(), "No method runs. repro slurm submits it as the job the array waits for.")
		fs.PrintDefaults()
	}
	profile := fs.String("profile", "", "profile to apply: quick or full")
	jobs := fs.Int("j", runtime.NumCPU(), "dataset splits prepared at once")
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
	cells, err := loadCells(files, *profile)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := harness.NewRunner(harness.Default, harness.Options{Results: *results, Jobs: *jobs, KeyRevision: *keyRev})
	n, err := r.Prepare(ctx, cells)
	fmt.Fprintf(os.Stderr, "prepared %d dataset splits\n", n)
	return err
}
