package main

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// The method keeps the contract of every sampler of the module.
func TestEnsembleConformance(t *testing.T) {
	samplertest.Test(t, samplertest.Method{
		Zero: Ensemble{},
		Small: func(int) sampler.Sampler {
			return Ensemble{N: 4, Iterations: 30}
		},
	})
}

// On N(m, Σ) every MAP point is the mode m, whether the starts come from
// the prior (target.Gaussian samples itself) or from around X0.
func TestEnsembleFindsTheMode(t *testing.T) {
	m := []float64{1, -2, 0.5}
	cov := mat.NewSymDense(3, []float64{2, 0.5, 0, 0.5, 1, 0.2, 0, 0.2, 0.5})
	g, err := target.NewGaussian(m, cov)
	if err != nil {
		t.Fatal(err)
	}
	plain := target.Func{D: 3, F: g.LogProbGrad} // no prior: starts around X0
	for name, tg := range map[string]target.Target{"prior": g, "x0": plain} {
		var snaps int
		rec := particle.RecorderFunc(func(s particle.Snapshot) error { snaps++; return nil })
		set, err := Ensemble{N: 6, Scale: 3}.Run(context.Background(), tg, particle.Start{X0: []float64{5, 5, 5}}, rand.NewPCG(3, 4), rec)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if set.Len() != 6 || snaps != 6 {
			t.Fatalf("%s: %d points, %d snapshots; want 6 and 6", name, set.Len(), snaps)
		}
		for i := range 6 {
			if set.W[i] != 1.0/6 {
				t.Errorf("%s: weight %d = %v, want 1/6", name, i, set.W[i])
			}
			for j, mj := range m {
				// L-BFGS stops at ‖∇log p‖∞ < 1e-6·max(1,|log p|); with
				// eigenvalues of Σ⁻¹ below 3 that is within 1e-5 of m.
				if d := math.Abs(set.X.At(i, j) - mj); d > 1e-5 {
					t.Errorf("%s: point %d coordinate %d off the mode by %g", name, i, j, d)
				}
			}
		}
	}
}

// Negative settings are refused by name, before any work.
func TestEnsembleValidate(t *testing.T) {
	for _, e := range []Ensemble{{Iterations: -1}, {Batch: -2}, {Scale: math.NaN()}} {
		if err := e.Validate(); err == nil {
			t.Errorf("%+v: no error", e)
		}
	}
	if err := (Ensemble{}).Validate(); err != nil {
		t.Errorf("zero value: %v", err)
	}
}

// The program imports only public packages, as one in another module must.
func TestImportsArePublic(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files: %v", err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") {
				t.Errorf("%s imports %s, which a program of another module cannot", f, p)
			}
		}
	}
}

// gaussTOML runs map-ensemble beside svgd on the built-in 2-d Gaussian
// target, whose exact MMD² needs no data folder.
const gaussTOML = `id = "own-method-test"
seed = 1
datasets = ["gauss2d"]
splits = [0, 1]

[eval]
metrics = ["mmd2_exact"]

[methods.map-ensemble]
kind = "map-ensemble"
particles = [4]
settings = { iterations = 100 }

[methods.svgd]
kind = "svgd"
particles = [10]
settings = { iterations = 50, step_size = 0.1 }
`

func write(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The program's logic runs the file, writes results and figures, and a
// second run finds every cell cached with the same results.
func TestRunGaussian(t *testing.T) {
	dir := t.TempDir()
	o := options{config: write(t, dir, "g.toml", gaussTOML), dataDir: filepath.Join(dir, "nodata"), out: filepath.Join(dir, "out"), jobs: 2}
	var out bytes.Buffer
	if err := run(context.Background(), o, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "4 cells: 4 done (0 cached)") {
		t.Errorf("first run:\n%s", out.String())
	}
	csv := filepath.Join(o.out, "results", "base", "own-method-test", "map-ensemble", "gauss2d", "s0", "n4.csv")
	first, err := os.ReadFile(csv)
	if err != nil {
		t.Fatalf("results of the method: %v\n%s", err, out.String())
	}
	figs, _ := filepath.Glob(filepath.Join(o.out, "figures", "*.png"))
	if len(figs) == 0 {
		t.Errorf("no figure under %s:\n%s", filepath.Join(o.out, "figures"), out.String())
	}
	out.Reset()
	if err := run(context.Background(), o, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "4 cells: 4 done (4 cached)") {
		t.Errorf("second run:\n%s", out.String())
	}
	if again, _ := os.ReadFile(csv); !bytes.Equal(first, again) {
		t.Error("the cached results changed")
	}
}

// The settings of the method are decoded as strictly as a built-in kind's,
// and absent data is said plainly.
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, src, want string }{
		{"neg.toml", strings.Replace(gaussTOML, "iterations = 100", "iterations = -1", 1), "neg.toml"},
		{"typo.toml", strings.Replace(gaussTOML, "iterations = 100", "iteration = 100", 1), "iteration"},
		{"data.toml", strings.Replace(gaussTOML, `["gauss2d"]`, `["yacht"]`, 1), "make data"},
	} {
		o := options{config: write(t, dir, c.name, c.src), dataDir: filepath.Join(dir, "nodata"), out: filepath.Join(dir, "out"), jobs: 1}
		err := run(context.Background(), o, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
		t.Logf("%s: %v", c.name, err)
	}
}
