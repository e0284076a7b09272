package experiment

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestSGLDLaplaceStart runs SGLD's init = "laplace" through the wiring on
// gauss2d, where the Laplace approximation at the MAP is the target
// itself: 400 chains that make one step of ε = 10⁻¹² keep their starts,
// so their draws are 400 exact draws, whose expected exact MMD² is below
// 1/400 (k(x, x) = 1), while init = "map" without jitter puts every chain
// at the one point; the MAP's and the fit's costs (2·2 gradients) are in
// the summary, as SVGD's Laplace start records them.
func TestSGLDLaplaceStart(t *testing.T) {
	const n = 400
	res := runExp(t, "", `
id = "lap"
datasets = ["gauss2d"]
splits = [1]
[eval]
metrics = ["mmd2_exact"]
[methods.sgld-laplace]
kind = "sgld"
particles = [400]
settings = { init = "laplace", whiten = "none", chains = 400, iterations = 1, burn_in = -1, thin = 1, schedule = "constant", a = 1e-12 }
[methods.sgld-map]
kind = "sgld"
particles = [400]
settings = { init = "map", init_scale = -1, chains = 400, iterations = 1, burn_in = -1, thin = 1, schedule = "constant", a = 1e-12 }
`)
	lp, mp := res["sgld-laplace/gauss2d"], res["sgld-map/gauss2d"]
	finiteAll(t, "sgld-laplace", lp)
	got := lp.last[MMD2Exact]
	if !(got >= 0 && got < 3.0/n) {
		t.Errorf("exact MMD² of the chains' Laplace starts %v, want below 3/n = %v", got, 3.0/n)
	}
	if !(mp.last[MMD2Exact] > 10*got) {
		t.Errorf("exact MMD² at the MAP %v, from Laplace draws %v: want the one point far worse", mp.last[MMD2Exact], got)
	}
	s := summaryOf(t, lp)
	lap, _ := s["method"].(map[string]any)["laplace"].(map[string]any)
	m, _ := s["map"].(map[string]any)
	if lap == nil || m == nil || lap["grad_evals"].(float64) != 4 {
		t.Fatalf("summary %v: want the MAP and a Laplace fit of 2·2 gradients", s)
	}
}

// TestLaplaceChains checks the target that gives SGLD's chains their
// Laplace starts, on a logistic posterior of 300 synthetic rows: its prior
// draws have the fit's mean x̂ and covariance LLᵀ (4000 draws: every mean
// within 4 standard errors, every variance within 4·√(2/4000) of its
// value, relatively), far from the model's own prior draws (Gamma(1, 0.01)
// precision: log α near log 100 against the posterior's), and its density,
// score, data count and minibatch score are the model's.
func TestLaplaceChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows, p = 300, 2
	X := mat.NewDense(rows, p, nil)
	y := make([]float64, rows)
	for i := 0; i < rows; i++ {
		X.Set(i, 0, 1)
		X.Set(i, 1, rng.NormFloat64())
		y[i] = 1
		if rng.Float64() > 1/(1+math.Exp(-(0.5+2*X.At(i, 1)))) {
			y[i] = -1
		}
	}
	m := model.NewLogistic(X, y)
	d := m.Dim()
	ctx := context.Background()
	mr, err := laplace.FindMAP(ctx, m, make([]float64, d), laplace.MAPSettings{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := laplace.Fit(ctx, m, mr.X, laplace.FitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	lt := laplaceChains(m, l)
	ps, ok := lt.(target.PriorSampler)
	st, sok := lt.(target.Stochastic)
	if !ok || !sok {
		t.Fatalf("%T: want a PriorSampler and a Stochastic target", lt)
	}
	const n = 4000
	mean, sq := make([]float64, d), make([]float64, d)
	x := make([]float64, d)
	for i := 0; i < n; i++ {
		ps.SamplePrior(rng, x)
		for j, v := range x {
			mean[j] += v
			sq[j] += (v - l.X[j]) * (v - l.X[j])
		}
	}
	for j := 0; j < d; j++ {
		mean[j] /= n
		v := l.Cov.At(j, j)
		if math.Abs(mean[j]-l.X[j]) > 4*math.Sqrt(v/n) {
			t.Errorf("coordinate %d: mean %v, want the MAP's %v ± %v", j, mean[j], l.X[j], 4*math.Sqrt(v/n))
		}
		if r := sq[j] / n / v; math.Abs(r-1) > 4*math.Sqrt(2.0/n) {
			t.Errorf("coordinate %d: variance %v of the fit's, want 1 ± %v", j, r, 4*math.Sqrt(2.0/n))
		}
	}
	// The model's own prior puts log α near log 100 = 4.6 (sd 1.3); the
	// posterior of 300 rows far below it, with an sd the fit gives.
	var prior float64
	for i := 0; i < n; i++ {
		m.SamplePrior(rng, x)
		prior += x[d-1]
	}
	if prior /= n; math.Abs(prior-mean[d-1]) < 10*math.Sqrt(l.Cov.At(d-1, d-1)/n) {
		t.Errorf("mean log α %v from the prior, %v from the fit: want them apart", prior, mean[d-1])
	}
	g1, g2 := make([]float64, d), make([]float64, d)
	batch := []int{3, 17, 17, 250}
	if a, b := lt.LogProbGrad(mr.X, g1), m.LogProbGrad(mr.X, g2); a != b || !equalSlices(g1, g2) {
		t.Errorf("LogProbGrad %v %v, want the model's %v %v", a, g1, b, g2)
	}
	if a, b := st.MinibatchLogProbGrad(mr.X, g1, batch), m.MinibatchLogProbGrad(mr.X, g2, batch); a != b || !equalSlices(g1, g2) || st.NData() != rows {
		t.Errorf("MinibatchLogProbGrad %v %v (N %d), want the model's %v %v (N %d)", a, g1, st.NData(), b, g2, rows)
	}
	// Through the wiring: 2000 chains from init = "laplace" that make one
	// step of ε = 10⁻¹² keep their starts; their mean log α is the fit's
	// (the cell's MAP is the same L-BFGS optimum within its tolerance, far
	// below the posterior's scale), and their first snapshot is charged
	// the MAP and the fit.
	var set particle.Set
	var first int64 = -1
	r := harness.NewRegistry()
	Register(r)
	r.RegisterDataset("synthlr", harness.Dataset{
		Load: func(context.Context, int, *harness.Env) (*harness.Problem, error) {
			return &harness.Problem{Target: m, Model: NewLogisticData(Info{Name: "synthlr", Key: "synthlr"}, m, X, y, nil, nil)}, nil
		},
		Checksums: func(int, *harness.Env) (map[string]string, error) { return map[string]string{"synthlr": "1"}, nil },
	})
	harness.RegisterMethod(r, "sgld-probe", "1", func(ctx context.Context, in harness.Input[SGLDConfig]) (harness.Output, error) {
		in.Recorder = firstCost{rec: in.Recorder, first: &first}
		out, err := runSGLD(ctx, in)
		set = out.Set
		return out, err
	})
	e, err := harness.Load(r, "probe.toml", []byte(`
id = "probe"
datasets = ["synthlr"]
splits = [0]
[eval]
metrics = ["accuracy"]
[methods.m]
kind = "sgld-probe"
particles = [2000]
settings = { init = "laplace", whiten = "none", chains = 2000, iterations = 1, burn_in = -1, thin = 1, schedule = "constant", a = 1e-12 }
`), "")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := harness.NewRunner(r, harness.Options{Results: t.TempDir(), Jobs: 1}).Run(ctx, harness.Plan([]*harness.Experiment{e}))
	if err != nil || sum.Failed > 0 {
		t.Fatalf("wiring: %v %v", sum, err)
	}
	if k, _ := set.X.Dims(); k != 2000 {
		t.Fatalf("wiring: %d draws, want 2000", k)
	}
	var wm float64
	for i := 0; i < 2000; i++ {
		wm += set.X.At(i, d-1) / 2000
	}
	if v := l.Cov.At(d-1, d-1); math.Abs(wm-l.X[d-1]) > 4*math.Sqrt(v/2000)+1e-3 {
		t.Errorf("wiring: mean log α of the chains' starts %v, want the fit's %v ± %v", wm, l.X[d-1], 4*math.Sqrt(v/2000))
	}
	if first < mr.GradEvals/2+l.GradEvals {
		t.Errorf("wiring: first snapshot at %d gradient evaluations, want the MAP's (about %d) and the fit's %d charged", first, mr.GradEvals, l.GradEvals)
	}

	// A target without minibatches stays one.
	if _, ok := laplaceChains(target.Target(plainTarget{m}), l).(target.Stochastic); ok {
		t.Error("a target without minibatches became Stochastic")
	}
}

// firstCost records the gradient evaluations of the first snapshot.
type firstCost struct {
	rec   particle.Recorder
	first *int64
}

func (f firstCost) Record(s particle.Snapshot) error {
	if *f.first < 0 {
		*f.first = s.GradEvals
	}
	return f.rec.Record(s)
}

// plainTarget hides every interface of a target but target.Target.
type plainTarget struct{ t target.Target }

func (p plainTarget) Dim() int                              { return p.t.Dim() }
func (p plainTarget) LogProbGrad(x, grad []float64) float64 { return p.t.LogProbGrad(x, grad) }

func equalSlices(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestSGLDInitValidation refuses, naming the key, a start SGLD does not
// have, jitter with the Laplace start (its draws have their own spread),
// and the Laplace start in whitened coordinates (whose chains start at
// Laplace draws already); the Laplace start alone loads.
func TestSGLDInitValidation(t *testing.T) {
	load := func(settings string) error {
		src := "id = \"v\"\ndatasets = [\"gauss2d\"]\nsplits = [0]\n[eval]\nmetrics = [\"mmd2_exact\"]\n[methods.m]\nkind = \"sgld\"\nsettings = " + settings + "\n"
		_, err := harness.Load(testRegistry, "v.toml", []byte(src), "")
		return err
	}
	for _, tc := range []struct{ settings, key string }{
		{`{ init = "lapalce" }`, "init"},
		{`{ init = "laplace", whiten = "none", init_scale = 0.5 }`, "init_scale"},
		{`{ init = "laplace", whiten = "none", init_scale = -1 }`, "init_scale"},
		{`{ init = "laplace", whiten = "laplace" }`, "init"},
		{`{ init = "laplace" }`, "init"},
	} {
		if err := load(tc.settings); err == nil || !strings.Contains(err.Error(), "key methods.m.settings."+tc.key) {
			t.Errorf("%s: error %v, want one naming %s", tc.settings, err, tc.key)
		}
	}
	if err := load(`{ init = "laplace", whiten = "none" }`); err != nil {
		t.Errorf(`init = "laplace", whiten = "none": %v`, err)
	}
}
