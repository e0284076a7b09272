package main

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/mmdfw/mmdfw/pkg/repro"
)

func init() {
	register(&command{
		name:    "list",
		summary: "list the cells of experiment files with their index and cache status",
		run:     listCmd,
	})
}

func listCmd(reg *repro.Registry, args []string) error {
	cmd := newCellCmd(reg, cellSpec{
		name: "list",
		usage: []string{
			"usage: repro list FILE... [--profile quick|full] [--set KEY=VALUE]... [--results DIR] [--json]",
			"\nPrints one line per cell: its index (for repro run --cells), its status",
			"(done, failed, skipped, stale or pending), its short cache key and its id;",
			"a stale cell's note says which inputs of its key changed. With --json, a",
			"JSON array of one object per cell (index, id, status, key, reason, results).",
		},
	})
	asJSON := cmd.fs.Bool("json", false, "print a JSON array of one object per cell")
	cells, err := cmd.load(args)
	if err != nil {
		return err
	}
	r, err := cmd.statusRunner(cells)
	if err != nil {
		return err
	}
	if *asJSON {
		out := []cellJSON{}
		for _, c := range cells {
			st, err := r.Status(c)
			if err != nil {
				return err
			}
			out = append(out, newCellJSON(r, st))
		}
		return writeJSON(os.Stdout, out)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "INDEX\tSTATUS\tKEY\tCELL\tNOTE")
	counts := map[repro.Status]int{}
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return err
		}
		counts[st.Status]++
		note, key := "", "-"
		if st.Key != "" {
			key = st.Key[:10]
		}
		switch {
		case st.Err != nil:
			note = firstLine(st.Err.Error())
		case st.Prov != nil && st.Status != repro.Done && st.Prov.Error != "":
			note = firstLine(st.Prov.Error)
		case st.Status == repro.Pending && st.DataMissing():
			note = "skipped when run: " + firstLine(st.MissingReason())
		}
		if why := st.Unverified(); why != "" {
			note = why
		} else if why := st.StaleReason(); why != "" {
			note = "changed: " + why
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\n", c.Index, st.Status, key, c.ID, note)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d cells: %d done, %d failed, %d skipped, %d stale, %d pending\n", len(cells),
		counts[repro.Done], counts[repro.Failed], counts[repro.Skipped], counts[repro.Stale], counts[repro.Pending])
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
