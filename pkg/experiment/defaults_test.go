package experiment

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/harness"
)

// A settings table that leaves a key out runs the package's zero value,
// as a Go caller of the package does: the same series, bit for bit, as a
// table that writes the package's defaults out (for SVGD, SGLD and SP the
// target's own scales and a convergence stop; for MMD-FW on a Gaussian
// target, whose exact embedding rules out the target's scales, the
// bandwidth scale with Laplace candidates from 5 starts and Bayesian
// quadrature weights), and another one than the paper's protocol written
// out (whiten "none", stop "fixed"; perturbed candidates from one start).
func TestSilenceIsThePackagesDefault(t *testing.T) {
	const exp = `
id = "def"
seed = 5
datasets = ["gauss2d"]
splits = [1]
[eval]
metrics = ["mmd2_exact"]
every = 1
[methods.svgd]
kind = "svgd"
particles = [20]
settings = { iterations = 60SVGD }
[methods.sgld]
kind = "sgld"
particles = [20]
settings = { iterations = 400SGLD }
[methods.sp]
kind = "sp"
particles = [12]
settings = { candidates = 20SP }
[methods.mmdfw]
kind = "mmdfw"
particles = [12]
settings = { lmo_steps = 20MMDFW }
`
	run := func(svgd, sgld, sp, mmdfw string) map[string]result {
		return runExp(t, "", strings.NewReplacer("SVGD", svgd, "SGLD", sgld, "SP", sp, "MMDFW", mmdfw).Replace(exp))
	}
	silent := run("", "", "", "")
	written := run(`, whiten = "laplace", stop = "plateau"`, `, whiten = "laplace", stop = "converged"`,
		`, whiten = "laplace", stop = "ksd"`, `, scale = "bandwidth", init = "laplace", starts = 5, weights = "bq", stop = "fixed", weight_solver = "pairwise"`)
	paper := run(`, whiten = "none", stop = "fixed"`, `, whiten = "none", stop = "fixed"`,
		`, whiten = "none", stop = "fixed"`, `, scale = "bandwidth", stop = "fixed", init = "perturb", starts = 1, weight_solver = "fista"`)
	for _, m := range []string{"svgd", "sgld", "sp", "mmdfw"} {
		id := m + "/gauss2d"
		a, b, c := silent[id].series[MMD2Exact], written[id].series[MMD2Exact], paper[id].series[MMD2Exact]
		if len(a) == 0 || !testutil.SameFloats(a, b) {
			t.Errorf("%s: silent %v, the package's defaults written out %v", m, a, b)
		}
		if testutil.SameFloats(a, c) {
			t.Errorf("%s: silent gives the paper's protocol %v", m, c)
		}
	}
}

// An MMD-FW run refused by the package fails its cell with the package's
// error, not a panic of the wiring.
func TestMMDFWRefusedRunFails(t *testing.T) {
	src := "id = \"ref\"\ndatasets = [\"gauss2d\"]\nsplits = [1]\n[eval]\nmetrics = [\"mmd2_exact\"]\n" +
		"[methods.m]\nkind = \"mmdfw\"\nparticles = [5]\nsettings = { scale = \"target\" }\n"
	e, err := harness.Load(testRegistry, "ref.toml", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	r := harness.NewRunner(testRegistry, harness.Options{Results: t.TempDir(), Jobs: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	cells := harness.Plan([]*harness.Experiment{e})
	if _, err := r.Run(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	_, pp := r.Paths(cells[0])
	p, err := harness.ReadProvenance(pp)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != harness.Failed || strings.Contains(p.Error, "panic") || !strings.Contains(p.Error, "scale") {
		t.Errorf("status %s, error %q; want failed with the package's error on scale", p.Status, p.Error)
	}
}
