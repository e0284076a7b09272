package repro

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func init() {
	register(&command{
		name:    "prepare",
		summary: "compute the shared artefacts (references, MAP points) of experiment files",
		run:     prepareCmd,
	})
}

func prepareCmd(e *cli, args []string) error {
	cmd := newCellCmd(e, cellSpec{
		name: "prepare",
		usage: []string{
			"usage: repro prepare FILE... [--profile quick|full] [-j N] [--results DIR]",
			"\nComputes once, into the results directory, what the unfinished cells share:",
			"each dataset split's problem (MAP points), its metrics and reference sample.",
			"No method runs. repro slurm submits it as the job the array waits for.",
		},
		jobs: "dataset splits prepared at once",
	})
	cells, err := cmd.load(args)
	if err != nil {
		return err
	}
	if _, err := cmd.checkData(cells, true); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := cmd.runner(Options{})
	n, err := r.Prepare(ctx, cells)
	fmt.Fprintf(e.stderr, "prepared %d dataset splits\n", n)
	return err
}
