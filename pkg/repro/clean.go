package repro

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/safefile"
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
			"Nothing is removed without --yes; the dry run lists exactly what --yes",
			"removes. Left alone: cells being run, cells stale only because their data",
			"is absent here (see --data-dir), results of another profile than --profile",
			"(they share the results folder), and any file that is not this program's",
			"own result: a provenance that does not decode as one, a CSV without the",
			"results header, a symbolic link, or a file reached through one (a linked",
			"profile or experiment folder is not entered).",
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
	kept, otherProfile, notOwn := 0, 0, 0
	// add lists p for removal when it is this program's own result file
	// reached without a link.
	add := func(p, reason string) {
		if err := ownResult(*cmd.results, p); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(e.stderr, "kept %s: %v\n", p, err)
				notOwn++
			}
			return
		}
		remove = append(remove, p)
		why[p] = reason
	}
	for _, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return err
		}
		if st.Status != Stale || r.Running(c) {
			continue
		}
		if st.Prov == nil {
			// A provenance that cannot be read: not known to be this
			// program's; the next run replaces it.
			_, prov := r.Paths(c)
			fmt.Fprintf(e.stderr, "kept %s: %s; repro run replaces it\n", prov, st.StaleReason())
			notOwn++
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
			add(p, "stale: "+st.StaleReason())
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
		add(p, "orphan: no cell of its experiment")
	}
	if otherProfile > 0 {
		fmt.Fprintf(e.stderr, "%d cells or files kept: their results are of another profile than %q (give its --profile)\n", otherProfile, profile)
	}
	if notOwn > 0 {
		fmt.Fprintf(e.stderr, "%d files kept: not known to be results of this program, or reached through a symbolic link\n", notOwn)
	}
	if kept > 0 {
		fmt.Fprintf(e.stderr, "%d stale cells kept: their data is missing under --data-dir, so their results cannot be judged\n", kept)
	}
	verb := "would remove"
	if *yes {
		verb = "removed"
	}
	var root *os.Root
	if *yes && len(remove) > 0 {
		// Removals go through the results directory as a root, so that a
		// folder swapped for a link since the checks above cannot lead
		// them outside it.
		if root, err = os.OpenRoot(*cmd.results); err != nil {
			return err
		}
		defer root.Close()
	}
	n := 0
	for _, p := range remove {
		if *yes {
			rel, err := filepath.Rel(*cmd.results, p)
			if err != nil {
				return err
			}
			if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
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

// ownResult returns nil when p, a file under the results directory
// results, is one of this program's result files reached without a link:
// every folder between results and p is a real folder, p is a regular
// file, and it is a provenance that decodes as one (cell, key and a known
// status) or a CSV that starts with the results header. Otherwise it says
// why not; a missing file is fs.ErrNotExist.
func ownResult(results, p string) error {
	rel, err := filepath.Rel(results, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("not under the results directory %s", results)
	}
	dir := results
	parts := strings.Split(rel, string(filepath.Separator))
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is a symbolic link or not a folder (not entered)", dir)
		}
	}
	switch filepath.Ext(p) {
	case ".json":
		prov, err := ReadProvenance(p)
		if err != nil {
			return err
		}
		switch {
		case prov.Cell == "" || prov.Key == "" || prov.Experiment == "":
			return errors.New("not a provenance of this program (no cell, key or experiment)")
		case prov.Status != Done && prov.Status != Failed && prov.Status != Skipped:
			return fmt.Errorf("not a provenance of this program (status %q)", prov.Status)
		}
		return nil
	case ".csv":
		f, err := safefile.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		head := make([]byte, len(CSVHeader)+1)
		n, _ := io.ReadFull(f, head)
		if h := string(head[:n]); h != CSVHeader+"\n" && h != CSVHeader+"\r" {
			return errors.New("not a results CSV of this program (another header)")
		}
		return nil
	}
	return errors.New("not a CSV or provenance file")
}
