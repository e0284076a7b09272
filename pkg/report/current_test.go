package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// The experiment file as it was run: its quick profile stops every method
// after 10 steps, so that a cell of the quick profile has another cache key
// than the same cell planned under the base (full) protocol.
const currentRunTOML = `
id = "fig2b"
datasets = ["naval"]
splits = [0, 1]
[eval]
metrics = ["mmd2"]
[methods.mmdfw]
kind = "mmdfw"
particles = [40]
[methods.svgd]
kind = "svgd"
particles = [20]
[methods.sp]
kind = "sp"
particles = [40]
[profiles.quick]
splits = [0]
[profiles.quick.budget]
steps = 10
`

// The file after the run: SVGD's settings changed (its result is stale)
// and SP was removed (its result is orphaned); the base protocol and the
// quick profile state their deviations (which enter no cache key).
const currentNowTOML = `
id = "fig2b"
deviation = "the base protocol's own deviation"
datasets = ["naval"]
splits = [0, 1]
[eval]
metrics = ["mmd2"]
[methods.mmdfw]
kind = "mmdfw"
particles = [40]
[methods.svgd]
kind = "svgd"
particles = [20]
settings = { direction = "frozen" }
[profiles.full]
[profiles.quick]
splits = [0]
deviation = "a shorter reference than the paper's"
[profiles.quick.budget]
steps = 10
`

// currentTree runs currentRunTOML under the quick profile (with
// revision-keyed cache keys when keyRev), then rewrites the file as
// currentNowTOML. It returns the registry, the results directory and the
// file.
func currentTree(t *testing.T, keyRev bool) (*harness.Registry, string, string) {
	t.Helper()
	reg := reporttest.Registry(reporttest.GoodCurves)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "fig2b.toml")
	dir := filepath.Join(tmp, "results")
	if err := os.WriteFile(file, []byte(currentRunTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := harness.LoadFile(reg, file, "quick")
	if err != nil {
		t.Fatal(err)
	}
	reporttest.Run(t, reg, harness.Options{Results: dir, KeyRevision: keyRev}, e)
	if err := os.WriteFile(file, []byte(currentNowTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	return reg, dir, file
}

func cellIDs(cells []*Cell) []string {
	var ids []string
	for _, c := range cells {
		ids = append(ids, c.Prov.Cell)
	}
	return ids
}

func TestLoadCurrent(t *testing.T) {
	const (
		cur    = "fig2b/mmdfw/naval/s0/n40"
		stale  = "fig2b/svgd/naval/s0/n20"
		orphan = "fig2b/sp/naval/s0/n40"
	)
	for _, keyRev := range []bool{false, true} {
		reg, dir, file := currentTree(t, keyRev)
		all, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(cellIDs(all.Cells), " "); got != strings.Join([]string{cur, orphan, stale}, " ") {
			t.Fatalf("key revision %t: the tree holds %s, want the three cells of the run", keyRev, got)
		}

		// The profile recorded in the provenance (quick) plans the cells.
		res, err := LoadCurrent(dir, Planned{Registry: reg, Files: []string{file}})
		if err != nil {
			t.Fatal(err)
		}
		if got := cellIDs(res.Cells); len(got) != 1 || got[0] != cur || res.Cells[0].Rows == nil {
			t.Errorf("key revision %t: current cells %v, want only %s with its rows", keyRev, got, cur)
		}
		want := []Ignored{
			{Cell: orphan, Path: filepath.Join(dir, "quick", filepath.FromSlash(orphan)+".json"), Reason: Orphaned},
			{Cell: stale, Path: filepath.Join(dir, "quick", filepath.FromSlash(stale)+".json"), Reason: Stale},
		}
		if len(res.Ignored) != len(want) || res.Ignored[0] != want[0] || res.Ignored[1] != want[1] {
			t.Errorf("key revision %t: ignored %+v, want %+v", keyRev, res.Ignored, want)
		}
		if len(res.Experiment("fig2b")) != 1 || len(Datasets(Done(res.Cells))) != 1 {
			t.Errorf("key revision %t: fig2b has %d cells, want 1", keyRev, len(res.Experiment("fig2b")))
		}

		// The report counts the current cell only and lists the others.
		var b bytes.Buffer
		if err := Write(&b, res, Options{Figures: "figures"}); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		dev, _, _ := strings.Cut(text[strings.Index(text, "## Deviations"):], "\n## Experiments")
		for _, s := range []string{
			"2 stale or orphaned result files ignored (1 stale", "1 orphaned",
			"`" + stale + "` (stale)", "`" + orphan + "` (orphaned)",
			"- **fig2b**: a shorter reference than the paper's\n",
		} {
			if !strings.Contains(dev, s) {
				t.Errorf("key revision %t: deviations lack %q:\n%s", keyRev, s, dev)
			}
		}
		if strings.Contains(text, "the base protocol's own deviation") {
			t.Errorf("key revision %t: the base protocol's deviation is listed for a quick run", keyRev)
		}
		if !strings.Contains(text, "Cells: 1 (1 done, 0 failed, 0 skipped)") {
			t.Errorf("key revision %t: the report does not count the current cell alone:\n%s", keyRev, text)
		}
		files, err := Plot(res, t.TempDir())
		if err != nil || len(files) == 0 {
			t.Errorf("key revision %t: Plot of the current cell: %v files, %v", keyRev, files, err)
		}

		// Under the full profile, the quick cell's budget is not the
		// planned one: it is stale too.
		full, err := LoadCurrent(dir, Planned{Registry: reg, Files: []string{file}, Profile: "full"})
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Cells) != 0 || len(full.Ignored) != 3 {
			t.Errorf("key revision %t: under the full profile %v current and %+v ignored, want none and 3", keyRev, cellIDs(full.Cells), full.Ignored)
		}
		// Without the experiment file every result is orphaned.
		none, err := LoadCurrent(dir, Planned{Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		if len(none.Cells) != 0 || len(none.Ignored) != 3 || none.Ignored[2].Reason != Orphaned {
			t.Errorf("key revision %t: with no file %v current and %+v ignored, want 3 orphaned", keyRev, cellIDs(none.Cells), none.Ignored)
		}
	}
}

// A results tree whose stale result has no CSV any more still loads: the
// CSV of an ignored result is not read.
func TestLoadCurrentSkipsStaleCSV(t *testing.T) {
	reg, dir, file := currentTree(t, false)
	if err := os.Remove(filepath.Join(dir, "quick", "fig2b", "svgd", "naval", "s0", "n20.csv")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil {
		t.Error("Load of a done cell without its CSV succeeded")
	}
	res, err := LoadCurrent(dir, Planned{Registry: reg, Files: []string{file}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 1 || len(res.Ignored) != 2 {
		t.Errorf("%d current, %d ignored, want 1 and 2", len(res.Cells), len(res.Ignored))
	}
}

func TestIgnoredListCapped(t *testing.T) {
	res := &Results{Metrics: reporttest.Meanings}
	for i := range MaxIgnoredListed + 5 {
		res.Ignored = append(res.Ignored, Ignored{Cell: "x/m/d/s" + string(rune('a'+i)), Reason: Orphaned})
	}
	var b strings.Builder
	n := 0
	writeIgnored(&b, res, &n, Options{})
	s := b.String()
	if n != 1 || !strings.Contains(s, fmt.Sprintf("%d stale or orphaned result files ignored (0 stale", MaxIgnoredListed+5)) || !strings.HasSuffix(s, " and 5 more.\n") ||
		strings.Count(s, "(orphaned)") != MaxIgnoredListed {
		t.Errorf("capped list:\n%s", s)
	}
}

// A cell the files plan but that has no result file is listed as not run.
func TestLoadCurrentListsCellsNotRun(t *testing.T) {
	reg, dir, file := currentTree(t, false)
	// Planned under the full protocol, none of the quick results is
	// current, and split 1 (absent from the quick profile) was never run.
	res, err := LoadCurrent(dir, Planned{Registry: reg, Files: []string{file}, Profile: "full"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"fig2b/mmdfw/naval/s1/n40", "fig2b/svgd/naval/s1/n20"}
	if strings.Join(res.NotRun, " ") != strings.Join(want, " ") {
		t.Fatalf("NotRun = %v, want %v", res.NotRun, want)
	}
	var b bytes.Buffer
	if err := Write(&b, res, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "2 planned cells have no result yet (not run: fig2b 2)") {
		t.Errorf("report does not list the cells not run:\n%s", b.String())
	}
}

// Results that overrides kept apart (<profile>/<experiment>@<namespace>/)
// are neither current nor orphaned for the files without the overrides:
// the report lists their folder, and reads them given the same overrides.
func TestLoadCurrentApart(t *testing.T) {
	reg := reporttest.Registry(reporttest.GoodCurves)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "fig2b.toml")
	dir := filepath.Join(tmp, "results")
	if err := os.WriteFile(file, []byte(currentRunTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := harness.LoadFileSet(reg, file, "quick", []string{"methods.mmdfw.particles=[30]"})
	if err != nil {
		t.Fatal(err)
	}
	reporttest.Run(t, reg, harness.Options{Results: dir}, e)
	res, err := LoadCurrent(dir, Planned{Registry: reg, Files: []string{file}, Profile: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	ns := "quick/fig2b@" + e.Namespace
	if len(res.Apart) != 1 || res.Apart[0].Cell != "fig2b/mmdfw/naval/s0/n30" || res.Apart[0].Reason != ns || len(res.Ignored) != 0 || len(res.Cells) != 2 {
		t.Fatalf("apart %+v, ignored %+v, %d current", res.Apart, res.Ignored, len(res.Cells))
	}
	var b bytes.Buffer
	if err := Write(&b, res, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "- 1 result files made with overrides (`--set`) are kept apart from the experiment files' own and not read here (give the same `--set` to report them): `" + ns + "` (1).\n"; !strings.Contains(b.String(), want) {
		t.Errorf("the report lacks %q:\n%s", want, b.String())
	}
}

// A current cell whose CSV changed since it was written, and a cell whose
// provenance is truncated, are ignored as stale saying why; neither stops
// the report.
func TestLoadCurrentVerifiesResults(t *testing.T) {
	reg, dir, file := currentTree(t, false)
	csv := filepath.Join(dir, "quick", "fig2b", "mmdfw", "naval", "s0", "n40.csv")
	b, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(csv, append(b, b[bytes.LastIndexByte(b[:len(b)-1], '\n')+1:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	prov := filepath.Join(dir, "quick", "fig2b", "svgd", "naval", "s0", "n20.json")
	if b, err = os.ReadFile(prov); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prov, b[:len(b)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := LoadCurrent(dir, Planned{Registry: reg, Files: []string{file}})
	if err != nil {
		t.Fatalf("LoadCurrent stops at a truncated provenance: %v", err)
	}
	if len(res.Cells) != 0 {
		t.Errorf("current cells %v, want none", cellIDs(res.Cells))
	}
	why := map[string]string{}
	for _, ig := range res.Ignored {
		why[ig.Cell] = ig.Reason + ": " + ig.Why
	}
	if w := why["fig2b/mmdfw/naval/s0/n40"]; !strings.HasPrefix(w, "stale: CSV changed since it was written") {
		t.Errorf("edited CSV ignored as %q", w)
	}
	if w := why["fig2b/svgd/naval/s0/n20"]; !strings.HasPrefix(w, "stale: provenance unreadable: "+prov) {
		t.Errorf("truncated provenance ignored as %q", w)
	}
	for _, id := range res.NotRun {
		if id == "fig2b/svgd/naval/s0/n20" {
			t.Error("the cell of the truncated provenance is listed as not run")
		}
	}
	var out bytes.Buffer
	if err := Write(&out, res, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "`fig2b/mmdfw/naval/s0/n40` (stale: CSV changed since it was written") {
		t.Errorf("the report does not say why the cell is ignored:\n%s", out.String())
	}
}
