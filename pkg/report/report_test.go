package report

import (
	"bytes"
	"encoding/xml"
	"go/ast"
	"go/parser"
	"go/token"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report/internal/reporttest"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestMeanSDPooled(t *testing.T) {
	m, sd := MeanSD([]float64{3.0, 3.2, 3.4})
	if !near(m, 3.2, 1e-14) || !near(sd, 0.2, 1e-14) {
		t.Errorf("MeanSD = %v, %v; want 3.2, 0.2", m, sd)
	}
	if m, sd := MeanSD([]float64{5}); m != 5 || sd != 0 {
		t.Errorf("MeanSD of one value = %v, %v; want 5, 0", m, sd)
	}
	if m, _ := MeanSD(nil); !math.IsNaN(m) {
		t.Errorf("MeanSD(nil) = %v, want NaN", m)
	}
}

func TestFitLineHand(t *testing.T) {
	// y = 1, 3, 2 at x = 1, 2, 3: slope 1/2, intercept 1, fitted 1.5, 2,
	// 2.5, SS_res = 1.5, SS_tot = 2, R² = 0.25.
	f := FitLine([]float64{1, 2, 3}, []float64{1, 3, 2})
	if !near(f.Slope, 0.5, 1e-14) || !near(f.Intercept, 1, 1e-14) || !near(f.R2, 0.25, 1e-14) || f.N != 3 {
		t.Errorf("FitLine = %+v; want slope 0.5, intercept 1, R² 0.25", f)
	}
	if f := FitLine([]float64{2, 2}, []float64{1, 3}); !math.IsNaN(f.Slope) {
		t.Errorf("FitLine of one distinct x = %+v, want NaN", f)
	}
}

func TestRateFitHand(t *testing.T) {
	// MMD² = e^{2 − 0.3 N} exactly; the non-positive value is left out.
	var n, v []float64
	for i := 1; i <= 6; i++ {
		n = append(n, float64(i))
		v = append(v, math.Exp(2-0.3*float64(i)))
	}
	n, v = append(n, 7), append(v, 0)
	f := RateFit(n, v)
	if !near(f.Slope, -0.3, 1e-12) || !near(f.Intercept, 2, 1e-12) || !near(f.R2, 1, 1e-12) || f.N != 6 || f.XMin != 1 || f.XMax != 6 {
		t.Errorf("RateFit = %+v; want slope −0.3, intercept 2, R² 1 over 6 points at N 1–6", f)
	}
	// SeriesRate fits the mean of the logs over splits: splits at
	// e^{1−0.5N} and e^{3−0.5N} average to 2 − 0.5N.
	s := Series{X: []float64{1, 2, 3, 4}}
	for _, x := range s.X {
		s.Vals = append(s.Vals, []float64{math.Exp(1 - 0.5*x), math.Exp(3 - 0.5*x)})
	}
	if f := SeriesRate(&s); !near(f.Slope, -0.5, 1e-12) || !near(f.Intercept, 2, 1e-12) || !near(f.R2, 1, 1e-12) {
		t.Errorf("SeriesRate = %+v; want slope −0.5, intercept 2", f)
	}
}

func TestFormatPM(t *testing.T) {
	for _, c := range []struct {
		mean, sd float64
		want     string
	}{
		{3.2, 0.2, "3.20 ± 0.20"},
		{-2.533333, 0.0763763, "-2.533 ± 0.076"},
		{0.00412, 0.000103, "0.00412 ± 0.00010"},
		{12.5, 3.4, "12.5 ± 3.4"},
		{7, 0, "7"},
	} {
		if got := FormatPM(c.mean, c.sd); got != c.want {
			t.Errorf("FormatPM(%v, %v) = %q, want %q", c.mean, c.sd, got, c.want)
		}
	}
}

func TestTimeSeriesInterpolation(t *testing.T) {
	// Two splits evaluated at different times: the grid spans [1, 3], where
	// both are defined, and each is interpolated linearly.
	a := memCell("fig2a", "svgd", "svgd", "naval", 0, 20,
		Row{Seconds: 0, Metric: "rmse", Value: 4}, Row{Seconds: 2, Metric: "rmse", Value: 2}, Row{Seconds: 3, Metric: "rmse", Value: 1})
	b := memCell("fig2a", "svgd", "svgd", "naval", 1, 20,
		Row{Seconds: 1, Metric: "rmse", Value: 6}, Row{Seconds: 5, Metric: "rmse", Value: 2})
	ss := TimeSeries([]*Cell{a, b}, "naval", "rmse")
	if len(ss) != 1 {
		t.Fatalf("got %d series, want 1", len(ss))
	}
	s := ss[0]
	if s.X[0] != 1 || s.X[len(s.X)-1] != 3 || len(s.X) != gridPoints || s.LogX || s.Splits != 2 {
		t.Fatalf("grid %v…%v (%d points, log %v, %d splits); want 1…3, %d points, linear, 2 splits", s.X[0], s.X[len(s.X)-1], len(s.X), s.LogX, s.Splits, gridPoints)
	}
	for i, x := range s.X {
		wa := 4 - x // 4 → 2 over [0, 2]
		if x > 2 {
			wa = 2 - (x - 2)
		}
		wb := 6 - (x-1)*1 // 6 → 2 over [1, 5]
		if !near(s.Vals[i][0], wa, 1e-12) || !near(s.Vals[i][1], wb, 1e-12) {
			t.Fatalf("at t=%v: %v, want [%v %v]", x, s.Vals[i], wa, wb)
		}
	}
}

func TestParticleSeries(t *testing.T) {
	// A greedy method contributes its trajectory by step, SVGD its final
	// value at each cell's N.
	fw := memCell("fig1b", "mmdfw", "mmdfw", "cov", 1, 3,
		Row{Step: 1, Metric: "mmd2", Value: 0.5}, Row{Step: 2, Metric: "mmd2", Value: 0.25}, Row{Step: 3, Metric: "mmd2", Value: 0.125})
	sv10 := memCell("fig1b", "svgd", "svgd", "cov", 1, 10, Row{Step: 5, Metric: "mmd2", Value: 9}, Row{Step: 100, Metric: "mmd2", Value: 0.01})
	sv20 := memCell("fig1b", "svgd", "svgd", "cov", 1, 20, Row{Step: 100, Metric: "mmd2", Value: 0.005})
	ss := ParticleSeries([]*Cell{sv20, fw, sv10}, "cov", "mmd2")
	if len(ss) != 2 || ss[0].Method != "mmdfw" || ss[1].Method != "svgd" {
		t.Fatalf("series %+v", ss)
	}
	if got := ss[0].X; len(got) != 3 || got[2] != 3 || ss[0].Vals[2][0] != 0.125 {
		t.Errorf("MMD-FW series X %v vals %v", got, ss[0].Vals)
	}
	if got := ss[1].X; len(got) != 2 || got[0] != 10 || got[1] != 20 || ss[1].Vals[0][0] != 0.01 || ss[1].Vals[1][0] != 0.005 {
		t.Errorf("SVGD series X %v vals %v", got, ss[1].Vals)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	reporttest.RemoveGoodTree()
	os.Exit(code)
}

func TestPlotWritesEveryFormat(t *testing.T) {
	res := goodTree(t)
	dir := t.TempDir()
	files, err := Plot(res, dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, base := range []string{"fig1a", "fig1b", "fig2a", "fig2b", "rff", "ablations-mmd2", "ablations-accuracy"} {
		for _, f := range Formats {
			want = append(want, base+"."+f)
		}
	}
	// No table1.md or table1.csv: Table 1 is the paper plug-in's (pkg/report/paper).
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files\n%v\nwant\n%v", got, want)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 200 {
			t.Errorf("%s: only %d bytes", f, len(b))
		}
		switch filepath.Ext(f) {
		case ".png":
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Errorf("%s: %v", f, err)
			} else if r := img.Bounds(); r.Dx() < 600 || r.Dy() < 400 {
				t.Errorf("%s: %v pixels", f, r)
			}
		case ".svg":
			var root struct{ XMLName xml.Name }
			if err := xml.Unmarshal(b, &root); err != nil || root.XMLName.Local != "svg" {
				t.Errorf("%s: root %v, error %v", f, root.XMLName, err)
			}
			if !bytes.Contains(b, []byte("<path")) && !bytes.Contains(b, []byte("<line")) {
				t.Errorf("%s: no drawing", f)
			}
		case ".pdf":
			if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b[len(b)-64:], []byte("%%EOF")) {
				t.Errorf("%s: not a complete PDF", f)
			}
			if os.Getenv("SOURCE_DATE_EPOCH") == "" && !bytes.Contains(b, []byte("/CreationDate (D:19700101000000)")) {
				t.Errorf("%s: creation date is not the fixed epoch", f)
			}
		}
	}
	// Plotting again gives the same bytes in every format (the PDFs' dates
	// are fixed), so regenerated figures do not show up as changes.
	again, err := Plot(res, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		a, _ := os.ReadFile(f)
		b, _ := os.ReadFile(again[i])
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two plots of the same results", filepath.Base(f))
		}
	}
	// The Gaussian target's MMD² is labelled exact; the ablations compare
	// the single SVGD→MMD-FW method with the MAP start.
	rff, _ := os.ReadFile(filepath.Join(dir, "rff.svg"))
	if !bytes.Contains(rff, []byte("exact MMD² to the target")) {
		t.Error("rff.svg does not label the exact MMD²")
	}
	abl, _ := os.ReadFile(filepath.Join(dir, "ablations-mmd2.svg"))
	for _, s := range []string{"Ablation: start", "Ablation: weights", "Ablation: svgd", "svgd-then-mmdfw (2 splits)", "start-map (2 splits)"} {
		if !bytes.Contains(abl, []byte(s)) {
			t.Errorf("ablations-mmd2.svg lacks %q", s)
		}
	}
	// The dataset label, with its subset, is on the figure.
	svg, _ := os.ReadFile(filepath.Join(dir, "fig1a.svg"))
	if !bytes.Contains(svg, []byte("Covertype (20,000-row prefix)")) {
		t.Error("fig1a.svg does not name the Covertype prefix")
	}
}

// TestNoMethodImports keeps the report (and its paper's plug-in) from running methods, so that plots
// and reports can never recompute results: it may import the method
// packages only for their Settings types (to decode recorded settings),
// never call their Run functions, and never import the wiring.
func TestNoMethodImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".", "./paper").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasSuffix(p, "/pkg/experiment") {
			t.Errorf("pkg/report depends on %s", p)
		}
	}
	methods := map[string]bool{"mmdfw": true, "svgd": true, "sp": true, "sgld": true, "hmc": true, "laplace": true}
	files, _ := filepath.Glob("*.go")
	paper, _ := filepath.Glob(filepath.Join("paper", "*.go"))
	files = append(files, paper...)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			// A package name is an identifier the parser leaves unresolved.
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil && methods[id.Name] && !isTypeOrConst(sel.Sel.Name) {
				t.Errorf("%s: uses %s.%s; the report may use only the methods' types and constants", fset.Position(sel.Pos()), id.Name, sel.Sel.Name)
			}
			return true
		})
	}
}

// isTypeOrConst reports whether an exported name of a method package is
// one the report may use: its settings type and enumeration values.
func isTypeOrConst(name string) bool {
	switch name {
	case "Settings", "RFFKernel", "RBFKernel", "DirectionAuto", "Self", "Frozen", "Exact", "First", "Rule", "DefaultFeatures",
		"DefaultCandidates", "DefaultNelderMeadPer":
		return true
	}
	return false
}

// A series that falls geometrically and then sits at the rounding floor
// (MMD² numerically zero, as a D = 50 random-feature run does once its
// particles span the feature space) is fitted over its fall only.
func TestRateFitLeavesOutTheRoundingFloor(t *testing.T) {
	var n, v []float64
	for i := 1; i <= 60; i++ {
		n = append(n, float64(i))
		if i <= 30 {
			v = append(v, 0.01*math.Exp(-0.5*float64(i)))
		} else {
			v = append(v, 1e-17*(1+0.3*math.Sin(float64(i))))
		}
	}
	f := RateFit(n, v)
	if !near(f.Slope, -0.5, 1e-12) || !near(f.R2, 1, 1e-12) || f.XMax != 30 {
		t.Errorf("RateFit = %+v; want slope −0.5, R² 1 over N 1–30", f)
	}
	s := Series{X: n, Vals: make([][]float64, len(n))}
	for i := range n {
		s.Vals[i] = []float64{v[i]}
	}
	if f := SeriesRate(&s); !near(f.Slope, -0.5, 1e-12) || f.XMax != 30 {
		t.Errorf("SeriesRate = %+v; want slope −0.5 over N 1–30", f)
	}
}

// Figure file names carry no colon, which is not portable.
func TestFigNameHasNoColon(t *testing.T) {
	if got := figName("ablations", nil, "", "method:mmd2_kernel"); got != "ablations-method-mmd2_kernel" {
		t.Fatalf("figName = %q", got)
	}
}

// TestTimedRunSettings checks that the deviations name, per run setting,
// the methods of a timed experiment that mixes settings, and count the
// cells that ran beside other work.
func TestTimedRunSettings(t *testing.T) {
	cell := func(method string, jobs, threads int, load float64) *Cell {
		c := memCell("fig1a", method, "svgd", "covertype", 1, 100)
		c.Prov.KeyDoc.Timed = true
		c.Prov.Jobs, c.Prov.Threads, c.Prov.Steps = jobs, threads, 10
		c.Prov.Host.Hostname, c.Prov.Host.CPUModel = "vm", "cpu"
		c.Prov.Load = &harness.LoadAvg{Start: load, End: load}
		return c
	}
	floor := cell("ols", 2, 1, 5) // no steps: no times to compare
	floor.Prov.Steps = 0
	res := &Results{Metrics: reporttest.Meanings, Cells: []*Cell{cell("mmdfw", 1, 2, 1.1), cell("svgd", 1, 2, 3.1), cell("sp", 2, 1, 2.9), cell("sgld", 2, 1, 3.2), floor}}
	var b strings.Builder
	writeDeviations(&b, res, "the paper", Options{})
	for _, s := range []string{
		"Timed experiment **fig1a** mixes run settings, so its times do not compare exactly: -j 1 on vm (cpu) (mmdfw, svgd); -j 2 on vm (cpu) (sgld, sp).",
		"Timed experiment **fig1a**: 2 of 4 cells ran beside other work (a 1-minute load average above jobs × threads + 1 at their start or end; methods sgld, svgd)",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("deviations lack %q:\n%s", s, b.String())
		}
	}
}
