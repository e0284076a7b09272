package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mmdfw/mmdfw/pkg/posteriordb"
	"github.com/mmdfw/mmdfw/pkg/repro"
)

const (
	folder = "posteriordb"
	name   = "normal_mean_var-normal_invgamma"
	config = "own-posterior.toml"
)

// load returns the posterior of the folder and its model.
func load(t *testing.T) (*posteriordb.Posterior, *repro.PosteriorModel, []float64) {
	t.Helper()
	db, err := posteriordb.Open(folder)
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NormalInvGamma(p.Data)
	if err != nil {
		t.Fatal(err)
	}
	var y []float64
	if err := json.Unmarshal(p.Data["y"], &y); err != nil {
		t.Fatal(err)
	}
	return p, m, y
}

// The gradient agrees with central finite differences of the log density
// on the unconstrained space. With step h = 1e-5 the difference's error
// is O(h²)·|f”'| ≈ 1e-9 plus rounding ε|f|/h ≈ 1e-9 for |f| ~ 50, so a
// relative tolerance of 1e-6 leaves a margin of 1,000.
func TestGradient(t *testing.T) {
	_, m, _ := load(t)
	d := m.Target.Dim()
	g := make([]float64, d)
	for _, u := range [][]float64{{0, 0}, {1.4, -0.5}, {-2, 1.5}, {3, -2}} {
		m.Target.LogProbGrad(u, g)
		for j := 0; j < d; j++ {
			const h = 1e-5
			up, dn := append([]float64{}, u...), append([]float64{}, u...)
			up[j] += h
			dn[j] -= h
			fd := (m.Target.LogProbGrad(up, make([]float64, d)) - m.Target.LogProbGrad(dn, make([]float64, d))) / (2 * h)
			if math.Abs(fd-g[j]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("u = %v, ∂/∂u%d: %g, finite differences %g", u, j, g[j], fd)
			}
		}
	}
}

// The log density is the exact normal-inverse-gamma posterior's (gonum's
// densities), plus the log-Jacobian log σ² of σ² = eᵘ, up to one
// constant: the differences between points agree to rounding.
func TestDensityIsTheExactPosterior(t *testing.T) {
	_, m, y := load(t)
	mn, k, a, b := Exact(y)
	exact := func(u []float64) float64 {
		s2 := math.Exp(u[1])
		// σ² ~ InvGamma(a, b): its log pdf is Gamma(a, b)'s at 1/σ² less
		// 2 log σ² (the Jacobian of 1/σ²).
		lp := distuv.Gamma{Alpha: a, Beta: b}.LogProb(1/s2) - 2*math.Log(s2)
		lp += distuv.Normal{Mu: mn, Sigma: math.Sqrt(s2 / k)}.LogProb(u[0])
		return lp + u[1]
	}
	g := make([]float64, 2)
	base := []float64{mn, math.Log(b / (a + 1))}
	c := m.Target.LogProbGrad(base, g) - exact(base)
	for _, u := range [][]float64{{0, 0}, {1.4, -0.5}, {-2, 1.5}, {3, -2}} {
		if got, want := m.Target.LogProbGrad(u, g)-c, exact(u); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("u = %v: log density %g, exact %g", u, got, want)
		}
	}
}

// The folder's reference draws are draws of the exact posterior: their
// means are within 4 standard errors of the exact ones.
func TestReferenceDraws(t *testing.T) {
	p, _, y := load(t)
	mn, k, a, b := Exact(y)
	r := p.Reference
	if r == nil || r.Chains() != 10 || r.Len() != 1000 {
		t.Fatalf("reference: %+v", r)
	}
	ev := b / (a - 1)       // E σ²
	vv := ev * ev / (a - 2) // Var σ²
	for j, want := range map[string][2]float64{
		"mu":     {mn, math.Sqrt(ev / k)},
		"sigma2": {ev, math.Sqrt(vv)},
	} {
		col := r.Index(j)
		var mean float64
		n := r.Len()
		for i := 0; i < n; i++ {
			mean += r.Draws.At(i, col)
		}
		mean /= float64(n)
		if se := want[1] / math.Sqrt(float64(n)); math.Abs(mean-want[0]) > 4*se {
			t.Errorf("%s: mean of the draws %g, exact %g (standard error %g)", j, mean, want[0], se)
		}
	}
}

// run runs the program's command line in-process and returns its exit
// status, output and messages.
func run(t *testing.T, reg *repro.Registry, args ...string) (int, string, string) {
	t.Helper()
	var out, msg bytes.Buffer
	code := repro.Main(context.Background(), reg, args, &out, &msg)
	return code, out.String(), msg.String()
}

// The program runs, plots and reports its own posterior end to end, with
// the quick profile into a results folder of its own; repro's own
// registry, without the model, skips the same cells.
func TestEndToEnd(t *testing.T) {
	tmp := t.TempDir()
	results, figures, out := filepath.Join(tmp, "results"), filepath.Join(tmp, "figures"), filepath.Join(tmp, "REPORT.md")
	common := []string{config, "--profile", "quick", "--posteriordb", folder, "--results", results}

	code, _, msg := run(t, repro.NewRegistry(), append([]string{"list"}, common...)...)
	if code != 0 || !strings.Contains(msg, "2 cells: 0 done") {
		t.Fatalf("list with repro's registry: exit %d\n%s", code, msg)
	}
	code, stdout, _ := run(t, repro.NewRegistry(), append([]string{"list"}, common...)...)
	if code != 0 || !strings.Contains(stdout, "model not available") {
		t.Errorf("repro's registry does not say the model is missing:\n%s", stdout)
	}

	reg := newRegistry()
	code, stdout, msg = run(t, reg, "pdb", "list", "--posteriordb", folder)
	if code != 0 || !strings.Contains(stdout, "normal_invgamma  2    yes") || !strings.Contains(stdout, "read without checksums") {
		t.Errorf("pdb list: exit %d\n%s%s", code, stdout, msg)
	}
	if code, _, msg = run(t, reg, append([]string{"run", "-j", "1"}, common...)...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, msg)
	}
	if strings.Count(msg, "not among the 13 staged ones") != 1 {
		t.Errorf("run does not say once that the posterior is unchecked:\n%s", msg)
	}
	code, stdout, msg = run(t, reg, append([]string{"status"}, common...)...)
	if code != 0 || !strings.Contains(stdout, "2 cells: 2 done, 0 running, 0 failed, 0 pending, 0 skipped") {
		t.Errorf("status: exit %d\n%s%s", code, stdout, msg)
	}
	code, stdout, msg = run(t, reg, "plot", config, "--posteriordb", folder, "--results", results, "--figures", figures)
	if code != 0 || !strings.Contains(stdout, "own-posterior-pdb_mean_err.png") {
		t.Errorf("plot: exit %d\n%s%s", code, stdout, msg)
	}
	code, _, msg = run(t, reg, "report", config, "--posteriordb", folder, "--results", results, "--figures", figures, "--out", out)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rep := string(b)
	for _, want := range []string{"### own-posterior", "normal_mean_var-normal_invgamma (posteriordb) | mmdfw | 10 | 1 |", "normal_mean_var-normal_invgamma (posteriordb) | svgd | 10 | 1 |"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	if strings.Contains(rep, "ignored") && strings.Contains(rep, "orphan") {
		t.Errorf("report ignores results:\n%s", rep)
	}
}

// The folder posteriordb/ is what gen writes, byte for byte.
func TestFolderIsGenerated(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "./gen", "-out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("go run ./gen failed, the folder cannot be regenerated: %v\n%s", err, out)
	}
	for _, f := range []string{"posterior.json", "model.stan", "data.json.zip", "reference_draws.json.zip", "reference_info.json"} {
		got, err := os.ReadFile(filepath.Join(dir, name, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(folder, name, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what gen writes: run go run ./examples/own-posterior/gen", f)
		}
	}
}
