package repro

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

func init() {
	register(&command{
		name:    "run",
		summary: "run the cells of experiment files (cached cells are skipped)",
		run:     runCmd,
	})
}

func runCmd(e *cli, args []string) error {
	cmd := newCellCmd(e, cellSpec{
		name: "run",
		usage: []string{
			"usage: repro run FILE... [--profile quick|full] [-j N] [--cells A-B] [--force] [--strict] [--results DIR]",
			"\nRuns every cell of the experiment files that is not cached under the results",
			"directory (in <results>/<profile>/). Interrupt with Ctrl-C: running cells stop at",
			"their next snapshot, nothing half-written remains, the exit status is 130, and",
			"the next run resumes. Runners sharing a results directory (other processes,",
			"other machines) compute each cell once. Ends with where the time went.",
			"\nA method may flag its result (chains that disagree, particles collapsed onto a",
			"point, an iteration ceiling reached before convergence): the cell's provenance",
			"records the diagnostics, the summary lists the flagged cells, and the report a",
			"section \"Flagged results\". With --strict a flagged result fails its cell, with the",
			"reasons in its error, and a cached flagged result counts as failed (exit 1).",
		},
		profile: "profile to apply: quick or full (default: the file's base settings)",
		jobs:    "cells run at once (at least 1); each gets max(1, NumCPU/j) threads",
	})
	cells := cmd.fs.String("cells", "", "run only the cells with these indices (as listed by repro list): a comma-separated list of A-B, A-, -B or A, e.g. 0,5,10-12")
	force := cmd.fs.Bool("force", false, "recompute cached cells (each old result stays until its new one is complete)")
	strict := cmd.fs.Bool("strict", false, "fail a cell whose method flagged its result (the error gives the reasons); cached flagged results count as failed")
	cpuProfile := cmd.fs.String("cpuprofile", "", "write a CPU profile of the run to `FILE` (go tool pprof)")
	memory := cmd.fs.String("memory", "", "the memory the cells' estimates are checked against before any runs (64GiB, 500G; off for no check; default $"+MemoryEnv+", else the machine's available memory)")
	all, err := cmd.load(args)
	if err != nil {
		return err
	}
	var memLimit uint64
	if *memory != "" {
		if memLimit, err = ParseBytes(*memory); err != nil {
			return usagef("--memory: %v", err)
		}
		if memLimit == 0 {
			memLimit = NoMemoryCheck
		}
	}
	sel, err := Select(all, *cells)
	if err != nil {
		return usagef("--%v", err)
	}
	if _, err := cmd.checkData(sel, true); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := cmd.runner(Options{Force: *force, Strict: *strict, Memory: memLimit, Progress: e.progress()})
	sum, err := r.Run(ctx, sel)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, sum)
	fmt.Fprintln(e.stderr, sum.Time)
	if ctx.Err() != nil {
		err := sum.Err()
		if err == nil {
			err = errors.New("interrupted")
		}
		return &interruptedError{err}
	}
	return sum.Err()
}
