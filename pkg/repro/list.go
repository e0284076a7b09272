package repro

import (
	"fmt"
	"text/tabwriter"
)

func init() {
	register(&command{
		name:    "list",
		summary: "list the cells of experiment files with their index and cache status",
		run:     listCmd,
	})
}

func listCmd(e *cli, args []string) error {
	cmd := newCellCmd(e, cellSpec{
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
		return writeJSON(e.stdout, out)
	}
	w := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "INDEX\tSTATUS\tKEY\tCELL\tNOTE")
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return err
		}
		note, key := "", "-"
		if st.Key != "" {
			key = st.Key[:10]
		}
		switch {
		case st.Err != nil:
			note = firstLine(st.Err.Error())
		case st.Prov != nil && st.Status != Done && st.Prov.Error != "":
			note = firstLine(st.Prov.Error)
		case st.Status == Pending && st.DataMissing():
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
	// The counts of repro status, so that the two agree.
	n, err := r.Count(cells)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, n)
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
