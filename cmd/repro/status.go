package main

import (
	"fmt"
)

func init() {
	register(&command{
		name:    "status",
		summary: "count the cells of experiment files done, running, failed, pending and skipped",
		run:     statusCmd,
	})
}

func statusCmd(args []string) error {
	cmd := newCellCmd(cellSpec{
		name: "status",
		usage: []string{
			"usage: repro status FILE... [--profile quick|full] [--results DIR] [-v]",
			"\nCounts the cells done, running (a live process holds the cell's running",
			"marker, on any machine sharing the results directory), failed, pending",
			"(never run, stale or interrupted) and skipped (data missing).",
		},
	})
	verbose := cmd.fs.Bool("v", false, "also list the running and failed cells")
	cells, err := cmd.load(args)
	if err != nil {
		return err
	}
	r, err := cmd.statusRunner(cells)
	if err != nil {
		return err
	}
	n, err := r.Count(cells)
	if err != nil {
		return err
	}
	fmt.Println(n)
	if *verbose {
		for _, id := range n.RunningCells {
			fmt.Println("  running: " + id)
		}
		for _, f := range n.FailedCells {
			fmt.Println("  failed:  " + f)
		}
	}
	return nil
}
