package repro

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

// countsJSON is Counts in the JSON of repro status.
type countsJSON struct {
	Total       int `json:"total"`
	Done        int `json:"done"`
	Running     int `json:"running"`
	Failed      int `json:"failed"`
	Pending     int `json:"pending"`
	Stale       int `json:"stale"`
	Interrupted int `json:"interrupted"`
	Skipped     int `json:"skipped"`
}

func countsToJSON(n *Counts) countsJSON {
	return countsJSON{n.Total, n.Done, n.Running, n.Failed, n.Pending, n.Stale, n.Interrupted, n.Skipped}
}

// fileStatusJSON is one experiment file in the JSON of repro status.
type fileStatusJSON struct {
	File       string     `json:"file"`
	Experiment string     `json:"experiment"`
	Profile    string     `json:"profile"`
	Counts     countsJSON `json:"counts"`
	Cells      []cellJSON `json:"cells"`
}

// byFile groups the cells by experiment file, in the order of the files.
func byFile(cells []*Cell) [][]*Cell {
	var out [][]*Cell
	at := map[*Experiment]int{}
	for _, c := range cells {
		i, ok := at[c.Experiment]
		if !ok {
			i = len(out)
			at[c.Experiment] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

func statusCmd(e *cli, args []string) error {
	cmd := newCellCmd(e, cellSpec{
		name: "status",
		usage: []string{
			"usage: repro status FILE... [--profile quick|full] [--set KEY=VALUE]... [--results DIR] [-v] [--json] [--times [--times-j N]]",
			"\nCounts the cells done, running (a live process holds the cell's running",
			"marker, on any machine sharing the results directory), failed, pending",
			"(never run, stale or interrupted) and skipped (data missing): one line per",
			"file, then the total when there are several. With --json, one object per",
			"file with its counts and its cells (as repro list --json), and the total.",
			"With --times, a Markdown table of the time each file's done cells",
			"recorded: the methods' compute seconds, the cells' own wall (data,",
			"method, evaluation), the distinct reference samples and their seconds,",
			"and the wall of a run at --times-j job slots projected from them.",
		},
	})
	verbose := cmd.fs.Bool("v", false, "also list the running, failed and stale cells (with the reason each is stale)")
	asJSON := cmd.fs.Bool("json", false, "print the counts and cells of every file as JSON")
	times := cmd.fs.Bool("times", false, "print the recorded time of every file's done cells as a Markdown table")
	timesJ := cmd.fs.Int("times-j", 2, "job slots of the projected wall of --times")
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
	groups := byFile(cells)
	if *times {
		if *timesJ < 1 {
			return usagef("--times-j %d: the number of job slots must be at least 1", *timesJ)
		}
		var provs []*Provenance
		for _, g := range groups {
			for _, c := range g {
				st, err := r.Status(c)
				if err != nil {
					return err
				}
				if st.Status != Done {
					st.Prov = nil
				}
				provs = append(provs, st.Prov)
			}
		}
		rows, total := timeRows(groups, provs)
		writeTimes(e.stdout, rows, total, *timesJ)
		return nil
	}
	if *asJSON {
		out := struct {
			Files []fileStatusJSON `json:"files"`
			Total countsJSON       `json:"total"`
		}{Files: []fileStatusJSON{}, Total: countsToJSON(n)}
		for _, g := range groups {
			e := g[0].Experiment
			gn, err := r.Count(g)
			if err != nil {
				return err
			}
			f := fileStatusJSON{File: e.File, Experiment: e.ID, Profile: e.Profile, Counts: countsToJSON(gn)}
			for _, c := range g {
				st, err := r.Status(c)
				if err != nil {
					return err
				}
				f.Cells = append(f.Cells, newCellJSON(r, st))
			}
			out.Files = append(out.Files, f)
		}
		return writeJSON(e.stdout, out)
	}
	if len(groups) > 1 {
		for _, g := range groups {
			gn, err := r.Count(g)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s: %v\n", g[0].Experiment.File, gn)
		}
		fmt.Fprint(e.stdout, "total: ")
	}
	fmt.Fprintln(e.stdout, n)
	if *verbose {
		for _, id := range n.RunningCells {
			fmt.Fprintln(e.stdout, "  running: "+id)
		}
		for _, f := range n.FailedCells {
			fmt.Fprintln(e.stdout, "  failed:  "+f)
		}
		for _, s := range n.StaleCells {
			fmt.Println("  stale:   " + s)
		}
	}
	return nil
}
