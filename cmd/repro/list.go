package main

import (
	"flag"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/mmdfw/mmdfw/internal/harness"
)

func init() {
	register(&command{
		name:    "list",
		summary: "list the cells of experiment files with their index and cache status",
		run:     listCmd,
	})
}

func listCmd(args []string) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: repro list FILE... [--profile quick|full] [--results DIR]")
		fmt.Fprintln(fs.Output(), "\nPrints one line per cell: its index (for repro run --cells), its status")
		fmt.Fprintln(fs.Output(), "(done, failed, skipped, stale or pending), its short cache key and its id.")
		fs.PrintDefaults()
	}
	profile := fs.String("profile", "", "profile to apply: quick or full")
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
	r := harness.NewRunner(harness.Default, harness.Options{Results: *results, KeyRevision: *keyRev})
	w := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "INDEX\tSTATUS\tKEY\tCELL\tNOTE")
	counts := map[harness.Status]int{}
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return err
		}
		counts[st.Status]++
		note := ""
		if st.Prov != nil && st.Status != harness.Done && st.Prov.Error != "" {
			note = firstLine(st.Prov.Error)
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", c.Index, st.Status, st.Key[:10], c.ID, note)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d cells: %d done, %d failed, %d skipped, %d stale, %d pending\n", len(cells),
		counts[harness.Done], counts[harness.Failed], counts[harness.Skipped], counts[harness.Stale], counts[harness.Pending])
	return nil
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
