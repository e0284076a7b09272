package report

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// judgeSettings are the settings of the toy kind "judge": a method that
// returns one particle and flags its result when Flag is set.
type judgeSettings struct {
	Flag bool `toml:"flag"`
}

const flaggedTOML = `
id = "judged"
datasets = ["gauss"]
splits = [1, 2]
[eval]
metrics = ["mmd2_exact"]
[methods.suspect]
kind = "judge"
particles = [3]
settings = { flag = true }
[methods.sound]
kind = "judge"
particles = [3]
`

// The report lists the cells whose method flagged its result, with the
// method and the reason, in a section of its own after the reference
// diagnostics; on results without flags it only names the run-time checks
// not evaluated on some cell.
func TestReportListsFlaggedResults(t *testing.T) {
	reg := reporttest.Registry(reporttest.GoodCurves)
	harness.RegisterMethod(reg, "judge", "1", func(ctx context.Context, in harness.Input[judgeSettings]) (harness.Output, error) {
		x := mat.NewDense(1, len(reporttest.MetricOrder), nil)
		x.Set(0, 4, 0.01) // mmd2_exact
		set := particle.Set{X: x, W: []float64{1}}
		if err := in.Recorder.Record(particle.Snapshot{Step: 1, X: x, W: set.W}); err != nil {
			return harness.Output{}, err
		}
		set.Diag.Set("kish_ess", 1)
		if in.Settings.Flag {
			set.Diag.Raise("collapse", "kish ESS %g of %d | one point", set.ESS(), in.N)
		}
		return harness.Output{Set: set}, nil
	})
	e, err := harness.Load(reg, "judged.toml", []byte(flaggedTOML), "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "results")
	reporttest.Run(t, reg, harness.Options{Results: dir}, e)
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.Declare(e)
	var b bytes.Buffer
	if err := Write(&b, res, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "\n## Flagged results\n\n2 cell(s) whose method flagged its result as not to be trusted (the figures above include them; `repro run --strict` fails them), by flag: collapse 2:\n\n" +
		"| cell | method | reason |\n|---|---|---|\n" +
		"| `judged/suspect/gauss/s1/n3` | suspect | collapse: kish ESS 1 of 3 \\| one point |\n" +
		"| `judged/suspect/gauss/s2/n3` | suspect | collapse: kish ESS 1 of 3 \\| one point |\n"
	if !strings.HasSuffix(b.String(), want) {
		_, tail, _ := strings.Cut(b.String(), "## HMC reference diagnostics")
		t.Errorf("report ends\n%s\nwant it to end\n%s", tail, want)
	}

	// Without flags (the tree of the other report tests, whose MMD-FW
	// cells predate the "narrow" check), the section only says which
	// run-time checks were not evaluated, and lists no cell.
	b.Reset()
	if err := Write(&b, goodTree(t), Options{}); err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(b.String(), "## Flagged results")
	if !strings.HasPrefix(sec, "\n\n0 cell(s) whose method flagged") || !strings.Contains(sec, "\n- narrow (MMD-FW, Stein Points): evaluated on 0 of ") ||
		strings.Contains(sec, "| cell |") {
		t.Errorf("on results without flags, the Flagged results section is\n%s", sec)
	}
}

// One flag, one story: a cell's flags read the same in the run's
// terminal output (its "cell finished" line and the summary's count by
// flag) and in the report's flagged results.
func TestFlagsReadTheSameInTerminalAndReport(t *testing.T) {
	reg := reporttest.Registry(reporttest.GoodCurves)
	harness.RegisterMethod(reg, "judge", "1", func(ctx context.Context, in harness.Input[judgeSettings]) (harness.Output, error) {
		x := mat.NewDense(1, len(reporttest.MetricOrder), nil)
		x.Set(0, 4, 0.01) // mmd2_exact
		set := particle.Set{X: x, W: []float64{1}}
		if err := in.Recorder.Record(particle.Snapshot{Step: 1, X: x, W: set.W}); err != nil {
			return harness.Output{}, err
		}
		set.Diag.Raise("collapse", "kish ESS %g of %d", set.ESS(), in.N)
		if in.Settings.Flag {
			set.Diag.Raise("mode", "split %d misses a mode", in.Cell.Split)
		}
		return harness.Output{Set: set}, nil
	})
	const toml = `
id = "judged"
datasets = ["gauss"]
splits = [1, 2, 3, 4, 5, 6]
[eval]
metrics = ["mmd2_exact"]
[methods.suspect]
kind = "judge"
particles = [3]
settings = { flag = true }
[methods.sound]
kind = "judge"
particles = [3]
`
	e, err := harness.Load(reg, "judged.toml", []byte(toml), "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "results")
	var logBuf bytes.Buffer
	opt := harness.Options{Results: dir, Jobs: 1, Log: slog.New(slog.NewJSONHandler(&logBuf, nil))}
	sum, err := harness.NewRunner(reg, opt).Run(context.Background(), harness.Plan([]*harness.Experiment{e}))
	if err != nil {
		t.Fatal(err)
	}
	terminal := map[string]string{} // cell → its "cell finished" line's flags
	dec := json.NewDecoder(&logBuf)
	for {
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			break
		}
		if rec["msg"] == "cell finished" {
			terminal[rec["cell"].(string)], _ = rec["flagged"].(string)
		}
	}
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.Declare(e)
	var b bytes.Buffer
	if err := Write(&b, res, Options{}); err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(b.String(), "## Flagged results")
	const counts = "collapse 12, mode 6"
	if !strings.Contains(sum.String(), "flagged: 12 cells, by flag: "+counts+";") {
		t.Errorf("the run's summary does not count %q:\n%s", counts, sum.String())
	}
	if !strings.Contains(sec, "12 cell(s) whose method flagged its result as not to be trusted (the figures above include them; `repro run --strict` fails them), by flag: "+counts) {
		t.Errorf("the report's flagged results do not count %q:\n%s", counts, sec)
	}
	rows := 0
	for _, l := range strings.Split(sec, "\n") {
		f := strings.Split(l, " | ")
		if len(f) != 3 || !strings.HasPrefix(f[0], "| `judged/") {
			continue
		}
		rows++
		cell := strings.Trim(f[0], "| `")
		if want := CellText(terminal[cell]); strings.TrimSuffix(f[2], " |") != want || want == "" {
			t.Errorf("%s: the report says %q, the terminal %q", cell, f[2], terminal[cell])
		}
	}
	if rows != 12 || len(terminal) != 12 {
		t.Errorf("%d report rows and %d terminal lines, want 12 each", rows, len(terminal))
	}
}
