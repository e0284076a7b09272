package repro

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

func init() {
	register(&command{
		name:    "clean",
		summary: "remove stale and orphaned result files of experiment files (dry run unless --yes)",
		run:     cleanCmd,
	})
}

func cleanCmd(e *cli, args []string) error {
	cmd := newCellCmd(e, cellSpec{
		name: "clean",
		usage: []string{
			"usage: repro clean FILE... [--profile quick|full] [--results DIR] [--yes]",
			"\nLists the result files (CSV and provenance) that no current cell would keep:",
			"those of stale cells (their key changed; the next run recomputes them) and",
			"orphans under an experiment's results folder that belong to none of its",
			"cells (a method, dataset, split or particle count the file no longer has).",
			"Nothing is removed without --yes. Left alone: cells being run, cells stale",
			"only because their data is absent here (see --data-dir), and results of",
			"another profile than --profile (they share the results folder).",
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
	r := cmd.runner(Options{})
	var remove []string
	why := map[string]string{}
	kept, otherProfile := 0, 0
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return err
		}
		if st.Status != Stale || r.Running(c) {
			continue
		}
		if st.Prov.Profile != c.Experiment.Profile {
			// Results of another profile in the same folder: not this
			// profile's to judge.
			otherProfile++
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
	profile := ""
	if len(cells) > 0 {
		profile = cells[0].Experiment.Profile
	}
	keep := map[string]bool{}
	for _, p := range orphans {
		if strings.HasSuffix(p, ".json") {
			if prov, err := ReadProvenance(p); err == nil && prov.Profile != profile {
				base := strings.TrimSuffix(p, ".json")
				keep[p], keep[base+".csv"] = true, true
			}
		}
	}
	for _, p := range orphans {
		if keep[p] {
			otherProfile++
			continue
		}
		remove = append(remove, p)
		why[p] = "orphan: no cell of its experiment"
	}
	if otherProfile > 0 {
		fmt.Fprintf(e.stderr, "%d cells or files kept: their results are of another profile than %q (give its --profile)\n", otherProfile, profile)
	}
	if kept > 0 {
		fmt.Fprintf(e.stderr, "%d stale cells kept: their data is missing under --data-dir, so their results cannot be judged\n", kept)
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
		fmt.Fprintf(e.stdout, "%s %s (%s)\n", verb, p, why[p])
	}
	switch {
	case n == 0:
		fmt.Fprintln(e.stderr, "nothing to remove")
	case !*yes:
		fmt.Fprintf(e.stderr, "%d files; run again with --yes to remove them\n", n)
	default:
		fmt.Fprintf(e.stderr, "%d files removed\n", n)
	}
	return nil
}
