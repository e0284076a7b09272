package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mmdfw/mmdfw/internal/harness"
)

func init() {
	register(&command{
		name:    "clean",
		summary: "remove stale and orphaned result files of experiment files (dry run unless --yes)",
		run:     cleanCmd,
	})
}

func cleanCmd(args []string) error {
	cmd := newCellCmd(cellSpec{
		name: "clean",
		usage: []string{
			"usage: repro clean FILE... [--profile quick|full] [--results DIR] [--yes]",
			"\nLists the result files (CSV and provenance) that no current cell would keep:",
			"those of stale cells (their key changed; the next run recomputes them) and",
			"orphans under an experiment's results folder that belong to none of its",
			"cells (a method, dataset, split or particle count the file no longer has).",
			"Nothing is removed without --yes. Cells being run are left alone, and so are",
			"cells stale only because their data is absent here (see --data-dir).",
		},
	})
	yes := cmd.fs.Bool("yes", false, "remove the files listed")
	cells, err := cmd.load(args)
	if err != nil {
		return err
	}
	if len(cmd.sets) > 0 {
		// Orphans are judged against every cell of the file: an override
		// that narrows splits or methods would make real results orphans.
		return fmt.Errorf("repro clean: --set is not accepted; clean judges files against the experiment files as written")
	}
	r := cmd.runner(harness.Options{})
	var remove []string
	why := map[string]string{}
	kept := 0
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return err
		}
		if st.Status != harness.Stale || r.Running(c) {
			continue
		}
		if st.DataMissing() {
			// Results computed from data that is not here: nothing says
			// they are out of date.
			kept++
			continue
		}
		csv, prov := r.Paths(c)
		for _, p := range []string{prov, csv} {
			if _, err := os.Stat(p); err == nil {
				remove = append(remove, p)
				why[p] = "stale: " + st.StaleReason()
			}
		}
	}
	orphans, err := r.Orphans(cells)
	if err != nil {
		return err
	}
	for _, p := range orphans {
		remove = append(remove, p)
		why[p] = "orphan: no cell of its experiment"
	}
	if kept > 0 {
		fmt.Fprintf(os.Stderr, "%d stale cells kept: their data is missing under --data-dir, so their results cannot be judged\n", kept)
	}
	verb := "would remove"
	if *yes {
		verb = "removed"
	}
	n := 0
	for _, p := range remove {
		if *yes {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		n++
		fmt.Printf("%s %s (%s)\n", verb, p, why[p])
	}
	if !*yes && n > 0 {
		fmt.Fprintf(os.Stderr, "%d files; run again with --yes to remove them\n", n)
	} else {
		fmt.Fprintf(os.Stderr, "%d files %s\n", n, verb) // n may be 0: nothing to remove
	}
	return nil
}
