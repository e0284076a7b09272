package report

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/harness"
)

// WriteLists writes the report's list files (Options.Lists) for res:
// prefix+CellsList, one row per skipped, failed, ignored, kept-apart or
// not-run cell (columns status, experiment, dataset, reason, cell), and
// prefix+VersionsList, one row per code revision of the cells (columns
// revision, cells), and returns the files written. Both are written,
// with their header alone when there is nothing to list, so that the
// report's links always land.
func WriteLists(prefix string, res *Results) ([]string, error) {
	cells := [][]string{{"status", "experiment", "dataset", "reason", "cell"}}
	for _, c := range res.Cells {
		if st := c.Prov.Status; st == harness.Skipped || st == harness.Failed {
			cells = append(cells, []string{string(st), c.Prov.Experiment, c.Prov.Dataset, FirstLine(c.Prov.Error), c.Prov.Cell})
		}
	}
	ignored := func(status string, list []Ignored) {
		for _, ig := range list {
			why := ig.Reason
			if ig.Why != "" {
				why += ": " + ig.Why
			}
			cells = append(cells, []string{status, strings.SplitN(ig.Cell, "/", 2)[0], "", why, ig.Cell})
		}
	}
	ignored("ignored", res.Ignored)
	ignored("apart", res.Apart)
	for _, id := range res.NotRun {
		cells = append(cells, []string{"not run", strings.SplitN(id, "/", 2)[0], "", "no result file yet", id})
	}
	rl, count := revisions(res)
	versions := [][]string{{"revision", "cells"}}
	for _, r := range rl {
		versions = append(versions, []string{r, strconv.Itoa(count[r])})
	}
	var files []string
	for _, f := range []struct {
		suffix string
		rows   [][]string
	}{{CellsList, cells}, {VersionsList, versions}} {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		if err := w.WriteAll(f.rows); err != nil {
			return files, err
		}
		if err := atomicfile.Write(prefix+f.suffix, b.Bytes(), 0o644); err != nil {
			return files, err
		}
		files = append(files, prefix+f.suffix)
	}
	return files, nil
}
