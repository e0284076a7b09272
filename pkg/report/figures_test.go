package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

// mineCells are the finished cells of an experiment of one's own, "mine":
// MMD-FW and SVGD on one dataset, two splits, with compute seconds and
// gradient evaluations that do not grow alike.
func mineCells() []*Cell {
	var cells []*Cell
	for split := 1; split <= 2; split++ {
		for _, m := range []string{"mmdfw", "svgd"} {
			var rows []Row
			for i := 1; i <= 10; i++ {
				v := 0.5 + 0.04*float64(i) + 0.01*float64(split)
				rows = append(rows, Row{Step: i, Seconds: 0.1 * float64(i*i), GradEvals: int64(100 * i), Metric: "accuracy", Value: v},
					Row{Step: i, Seconds: 0.1 * float64(i*i), GradEvals: int64(100 * i), Metric: "test_ll", Value: -v})
			}
			cells = append(cells, memCell("mine", m, m, "own", split, 10, rows...))
		}
	}
	return cells
}

func TestGradSeries(t *testing.T) {
	ss := GradSeries(mineCells(), "own", "accuracy")
	if len(ss) != 2 || ss[0].Method != "mmdfw" || ss[1].Method != "svgd" {
		t.Fatalf("series %+v", ss)
	}
	s := ss[0]
	if s.X[0] != 100 || s.X[len(s.X)-1] != 1000 || s.LogX || s.Splits != 2 {
		t.Fatalf("grid %v…%v (log %v, %d splits), want 100…1000, linear, 2 splits", s.X[0], s.X[len(s.X)-1], s.LogX, s.Splits)
	}
	// Linear in the gradient count: at g gradients, 0.5 + 0.04·g/100 + 0.01·split.
	for i, g := range s.X {
		for j, v := range s.Vals[i] {
			if want := 0.5 + 0.04*g/100 + 0.01*float64(j+1); !near(v, want, 1e-12) {
				t.Fatalf("at %v gradients split %d: %v, want %v", g, j+1, v, want)
			}
		}
	}
}

// An experiment of one's own that declares its figures gets them: the
// methods, axis and band it names.
func TestPlotDeclaredFigures(t *testing.T) {
	no := false
	res := &Results{Metrics: reporttest.Meanings, Cells: mineCells(), Figures: map[string][]harness.Figure{"mine": {
		{ID: "mine-grads", Title: "Mine", X: harness.XGradients, Y: harness.Metrics{"accuracy"}, Methods: []string{"mmdfw"}, Band: harness.BandSD},
		{ID: "mine-nb", Title: "Mine", X: harness.XGradients, Y: harness.Metrics{"accuracy"}, Methods: []string{"mmdfw"}, Band: harness.BandNone},
		{ID: "mine-both", Title: "Mine", X: harness.XSeconds, Y: harness.Metrics{"accuracy", "test_ll"}, LogX: &no},
	}}}
	dir := t.TempDir()
	files, err := Plot(res, dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		if strings.HasSuffix(f, ".svg") {
			got = append(got, filepath.Base(f))
		}
	}
	slices.Sort(got)
	if want := "mine-both-accuracy.svg mine-both-test_ll.svg mine-grads.svg mine-nb.svg"; strings.Join(got, " ") != want {
		t.Fatalf("figures %v, want %s", got, want)
	}
	if u := Undeclared(res); len(u) != 0 {
		t.Errorf("Undeclared = %v, want none", u)
	}
	read := func(n string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	grads, nb := read("mine-grads.svg"), read("mine-nb.svg")
	if !bytes.Contains(grads, []byte("gradient evaluations")) || !bytes.Contains(grads, []byte("Mine")) {
		t.Error("mine-grads.svg lacks its x label or title")
	}
	if !bytes.Contains(grads, []byte("mmdfw (2 splits)")) || bytes.Contains(grads, []byte("svgd")) {
		t.Error("mine-grads.svg does not draw exactly the method it names")
	}
	// Without the band, the figure has fewer filled shapes.
	if bytes.Count(nb, []byte("fill-opacity")) >= bytes.Count(grads, []byte("fill-opacity")) {
		t.Errorf("band = none draws %d filled shapes, the band %d", bytes.Count(nb, []byte("fill-opacity")), bytes.Count(grads, []byte("fill-opacity")))
	}
	both := read("mine-both-accuracy.svg")
	if !bytes.Contains(both, []byte("compute time")) || !bytes.Contains(both, []byte("svgd (2 splits)")) {
		t.Error("mine-both-accuracy.svg lacks its x label or a method")
	}
}

// An experiment that declares no figures gets the default figures, and is
// listed as such; figures = [] draws none.
func TestPlotUndeclared(t *testing.T) {
	res := &Results{Metrics: reporttest.Meanings, Cells: mineCells()}
	if u := Undeclared(res); len(u) != 1 || u[0] != "mine" {
		t.Fatalf("Undeclared = %v, want [mine]", u)
	}
	if n := strings.Join(FigureNames(res, "mine"), " "); n != "mine-accuracy mine-test_ll" {
		t.Errorf("FigureNames = %s", n)
	}
	dir := t.TempDir()
	files, err := Plot(res, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*len(Formats) {
		t.Errorf("default figures: %v", files)
	}
	for _, n := range FigureNames(res, "mine") {
		if _, err := os.Stat(filepath.Join(dir, n+".png")); err != nil {
			t.Error(err)
		}
	}
	res.Figures = map[string][]harness.Figure{"mine": nil}
	if files, err := Plot(res, t.TempDir()); err != nil || len(files) != 0 {
		t.Errorf("figures = []: %v, %v; want no file", files, err)
	}
	if u := Undeclared(res); len(u) != 0 {
		t.Errorf("Undeclared with figures = [] is %v", u)
	}
}

// The approximate twin of an exact-direction series comes from the
// recorded settings: the same kernel on a shared dataset.
func TestExactTwins(t *testing.T) {
	res := writeTree(t, t.TempDir(), reporttest.ExactCurves(true), reporttest.RffExactTOML)
	got := ExactTwins(res.Experiment("rff"))
	if len(got) != 2 || got["mmdfw-exact-rbf"] != "mmdfw-rbf" || got["mmdfw-exact-rff-d50"] != "mmdfw-rff-d50" {
		t.Errorf("ExactTwins = %v", got)
	}
}

// An axis whose curves span more than a decade is logarithmic.
func TestSpansDecade(t *testing.T) {
	s := func(v ...float64) Series {
		out := Series{}
		for i, x := range v {
			out.X = append(out.X, float64(i))
			out.Vals = append(out.Vals, []float64{x})
		}
		return out
	}
	for _, c := range []struct {
		s    []Series
		want bool
	}{
		{[]Series{s(0.03, 0.01), s(0.002, 0.001)}, true},
		{[]Series{s(0.8, 0.85)}, false},
		{[]Series{s(-3, -0.1)}, false},
		{[]Series{s(0.5, 20)}, true},
		{[]Series{{Disjoint: true, Splits: 2, SplitX: [][]float64{{1}, {2}}, SplitY: [][]float64{{1}, {100}}}}, true},
	} {
		if got := spansDecade(c.s); got != c.want {
			t.Errorf("spansDecade(%v) = %v, want %v", c.s, got, c.want)
		}
	}
}

// When the splits of an arm share no time (one ends before another
// begins) there is no common grid: the figure draws each split and says
// so.
func TestEmptyCommonGrid(t *testing.T) {
	var cells []*Cell
	for s, t0 := range []float64{0.1, 0.6} {
		cells = append(cells,
			memCell("fig1a", "mmdfw", "mmdfw", "covertype", s, 100,
				Row{Step: 1, Seconds: t0, GradEvals: 1000, Metric: "accuracy", Value: 0.84}, Row{Step: 2, Seconds: t0 + 0.2, GradEvals: 1200, Metric: "accuracy", Value: 0.85}),
			memCell("fig1a", "svgd", "svgd", "covertype", s, 100,
				Row{Step: 1, Seconds: 0.2, GradEvals: 500, Metric: "accuracy", Value: 0.6}, Row{Step: 2, Seconds: 2, GradEvals: 5000, Metric: "accuracy", Value: 0.85}))
	}
	ss := TimeSeries(cells, "covertype", "accuracy")
	if len(ss) != 2 || !ss[0].Disjoint || len(ss[0].SplitX) != 2 || len(ss[0].X) != 0 || ss[1].Disjoint {
		t.Fatalf("series %+v", ss)
	}
	dir := t.TempDir()
	f := Figure{Figure: harness.Figure{ID: "fig1a-seconds", Title: "Fig. 1(a)", X: harness.XSeconds, Y: []string{"accuracy"}}}
	if _, err := drawFigure(dir, f, cells, "covertype", reporttest.Meanings); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "fig1a-seconds.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("mmdfw (2 splits, each drawn: they share no common range)")) {
		t.Error("the figure does not draw the arm whose splits share no range, or does not say why")
	}
}
