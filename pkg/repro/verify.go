package repro

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"time"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/safefile"
)

func init() {
	register(&command{
		name:    "verify",
		summary: "recompute a seeded sample of done cells into a scratch folder and compare their CSVs with the results'",
		run:     verifyCmd,
	})
}

// VerifyRecord is what repro verify --record writes to
// <results>/.verify/<profile>.json and the report states: how many sampled
// cells were recomputed identical, at which commit.
type VerifyRecord = report.VerifyRecord

// timeColumns are the CSV columns a recomputation may change: the
// method's own clock.
var timeColumns = map[string]bool{"compute_seconds": true}

func verifyCmd(e *cli, args []string) error {
	cmd := newCellCmd(e, cellSpec{
		name: "verify",
		usage: []string{
			"usage: repro verify FILE... [--profile P] [--results DIR] [--sample K] [--seed S] [--budget D] [--scratch DIR] [--references] [--record] [-j N]",
			"\nRecomputes a sample of the done cells of the files into a scratch folder and",
			"compares each recomputed CSV with the one under --results, field for field but",
			"for the time column (compute_seconds); a timed cell (an evaluation grid in",
			"seconds, a wall-clock budget) at the steps both runs evaluated. The sample is drawn with --seed from the",
			"done cells, in a random order, taking cells while their recorded compute time",
			"stays within --budget, at most --sample of them. Cells that read a shared",
			"reference sample (an HMC reference) are left out unless --references, which",
			"computes their references again in the scratch folder. With --record, the",
			"outcome is written to DIR/.verify/<profile>.json, which the report states.",
			"Exits 1 when a recomputed CSV differs.",
		},
		jobs: "cells recomputed at once",
	})
	sample := cmd.fs.Int("sample", 30, "the most cells recomputed")
	seed := cmd.fs.Uint64("seed", 1, "seed of the sample")
	budget := cmd.fs.Duration("budget", 10*time.Minute, "the most recorded compute time of the sample, summed over its cells")
	scratch := cmd.fs.String("scratch", "", "folder the cells are recomputed into (default: a temporary folder, removed after)")
	refs := cmd.fs.Bool("references", false, "also sample cells that read a shared reference sample")
	record := cmd.fs.Bool("record", false, "write the outcome to DIR/.verify/<profile>.json for the report")
	cells, err := cmd.load(args)
	if err != nil {
		return err
	}
	if *sample < 1 {
		return usagef("--sample %d: must be at least 1", *sample)
	}
	if _, err := cmd.checkData(cells, true); err != nil {
		return err
	}
	committed := cmd.runner(Options{})
	type cand struct {
		cell  *Cell
		secs  float64
		timed bool
	}
	var pool []cand
	for _, c := range cells {
		st, err := committed.Status(c)
		if err != nil {
			return err
		}
		if st.Status != Done || st.Prov == nil {
			continue
		}
		if !*refs && readsReference(st.Prov.Summary) {
			continue
		}
		pool = append(pool, cand{c, st.Prov.Seconds, st.Prov.KeyDoc.Timed})
	}
	rng := rand.New(rand.NewPCG(*seed, 0x76657269667921))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	var chosen []*Cell
	timed := map[*Cell]bool{}
	var total float64
	for _, p := range pool {
		if len(chosen) == *sample {
			break
		}
		if total+p.secs > budget.Seconds() {
			continue
		}
		total += p.secs
		chosen = append(chosen, p.cell)
		timed[p.cell] = p.timed
	}
	if len(chosen) == 0 {
		what := "done cells without references"
		if *refs {
			what = "done cells"
		}
		return fmt.Errorf("no done cell fits the sample (%d %s, --budget %v)", len(pool), what, *budget)
	}
	sort.Slice(chosen, func(i, j int) bool { return chosen[i].Index < chosen[j].Index })
	dir := *scratch
	if dir == "" {
		if dir, err = os.MkdirTemp("", "repro-verify-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	fmt.Fprintf(e.stderr, "recomputing %d of %d done cells (recorded compute %.0f s) into %s\n", len(chosen), len(pool), total, dir)
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	scratchRunner := NewRunner(cmd.reg, Options{Results: dir, DataDir: *cmd.dataDir, Jobs: cmd.jobs, Force: true, Log: e.log()})
	sum, err := scratchRunner.Run(ctx, chosen)
	if err != nil {
		return err
	}
	rec := VerifyRecord{Seed: *seed, Sampled: len(chosen), Pool: len(pool), References: *refs, Date: time.Now().UTC().Format(time.DateOnly)}
	for _, c := range chosen {
		want, _ := committed.Paths(c)
		got, prov := scratchRunner.Paths(c)
		if rec.Revision == "" {
			if p, err := ReadProvenance(prov); err == nil {
				rec.Revision = p.Code.Revision
				rec.Dirty = p.Code.Modified
			}
		}
		var diff string
		if timed[c] {
			diff, err = compareTimedCSV(want, got)
		} else {
			diff, err = compareCSV(want, got)
		}
		switch {
		case err != nil:
			rec.Failed = append(rec.Failed, c.ID+": "+err.Error())
			fmt.Fprintf(e.stdout, "failed     %s: %v\n", c.ID, err)
		case diff != "":
			rec.Differ = append(rec.Differ, c.ID+": "+diff)
			fmt.Fprintf(e.stdout, "differs    %s: %s\n", c.ID, diff)
		case timed[c]:
			rec.Identical++
			rec.Timed++
			fmt.Fprintf(e.stdout, "identical  %s (timed: at the steps both evaluated)\n", c.ID)
		default:
			rec.Identical++
			fmt.Fprintf(e.stdout, "identical  %s\n", c.ID)
		}
	}
	rev := rec.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rec.Dirty {
		rev += " (with uncommitted changes)"
	}
	fmt.Fprintf(e.stdout, "%d of %d sampled cells recomputed identical at %s (%d differ, %d failed)\n",
		rec.Identical, rec.Sampled, rev, len(rec.Differ), len(rec.Failed))
	if err := sum.Err(); err != nil {
		return fmt.Errorf("repro verify: %w", err)
	}
	if *record {
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return err
		}
		name := report.VerifyFile(*cmd.results, *cmd.profile)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Write(name, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", name)
	}
	if len(rec.Differ)+len(rec.Failed) > 0 {
		return fmt.Errorf("repro verify: %d of %d sampled cells differ or failed", len(rec.Differ)+len(rec.Failed), rec.Sampled)
	}
	return nil
}

// readsReference reports whether a cell's recorded summary says it read a
// shared reference sample.
func readsReference(summary json.RawMessage) bool {
	var m map[string]json.RawMessage
	if len(summary) == 0 || json.Unmarshal(summary, &m) != nil {
		return false
	}
	_, ok := m["reference"]
	return ok
}

// readCSV reads a result CSV whole.
func readCSV(p string) ([][]string, error) {
	b, err := safefile.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return csv.NewReader(bytes.NewReader(b)).ReadAll()
}

// compareTimedCSV compares the result CSVs of a timed cell (an evaluation
// grid in seconds, a wall-clock budget): which steps fall on the grid, and
// how far the budget lets the run go, depend on the machine's speed, so it
// compares every field but the time columns at the (step, metric) pairs
// both files hold, and returns the first difference in words, or that
// they share none ("" when every shared pair agrees).
func compareTimedCSV(want, got string) (string, error) {
	w, err := readCSV(want)
	if err != nil {
		return "", err
	}
	g, err := readCSV(got)
	if err != nil {
		return "", err
	}
	if len(w) == 0 || len(g) == 0 || fmt.Sprint(w[0]) != fmt.Sprint(g[0]) {
		return compareCSV(want, got)
	}
	step, metric := slices.Index(w[0], "step"), slices.Index(w[0], "metric")
	if step < 0 || metric < 0 {
		return compareCSV(want, got)
	}
	at := map[[2]string][]string{}
	for _, r := range g[1:] {
		if len(r) == len(g[0]) {
			at[[2]string{r[step], r[metric]}] = r
		}
	}
	shared := 0
	for i, r := range w[1:] {
		if len(r) != len(w[0]) {
			return fmt.Sprintf("row %d: %d fields", i+1, len(r)), nil
		}
		o, ok := at[[2]string{r[step], r[metric]}]
		if !ok {
			continue
		}
		shared++
		for j, col := range w[0] {
			if !timeColumns[col] && r[j] != o[j] {
				return fmt.Sprintf("step %s, %s, %s: %s, recomputed %s", r[step], r[metric], col, r[j], o[j]), nil
			}
		}
	}
	if shared == 0 {
		return "no (step, metric) pair in common", nil
	}
	return "", nil
}

// compareCSV compares the result CSVs want and got field by field, but for
// the time columns, and returns the first difference in words ("" when
// there is none).
func compareCSV(want, got string) (string, error) {
	read := readCSV
	w, err := read(want)
	if err != nil {
		return "", err
	}
	g, err := read(got)
	if err != nil {
		return "", err
	}
	if len(w) == 0 || len(g) == 0 {
		return "", fmt.Errorf("%s or %s has no header", want, got)
	}
	if fmt.Sprint(w[0]) != fmt.Sprint(g[0]) {
		return fmt.Sprintf("header %v, recomputed %v", w[0], g[0]), nil
	}
	if len(w) != len(g) {
		return fmt.Sprintf("%d rows, recomputed %d", len(w)-1, len(g)-1), nil
	}
	for i := 1; i < len(w); i++ {
		if len(w[i]) != len(g[i]) {
			return fmt.Sprintf("row %d: %d fields, recomputed %d", i, len(w[i]), len(g[i])), nil
		}
		for j, col := range w[0] {
			if !timeColumns[col] && w[i][j] != g[i][j] {
				return fmt.Sprintf("row %d, %s: %s, recomputed %s", i, col, w[i][j], g[i][j]), nil
			}
		}
	}
	return "", nil
}
