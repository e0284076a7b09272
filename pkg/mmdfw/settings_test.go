package mmdfw

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/target"
)

func TestSettingsValidate(t *testing.T) {
	for _, c := range []struct {
		s     Settings
		field string
	}{
		{Settings{N: -5}, "particles"},
		{Settings{LMO: LMO{LMOSteps: -1}}, "lmo_steps"},
		{Settings{Candidates: Candidates{Noise: math.NaN()}}, "noise"},
		{Settings{KernelSpec: KernelSpec{Bandwidth: math.Inf(1)}}, "bandwidth"},
		{Settings{KernelSpec: KernelSpec{Features: 10}}, "features"},
		{Settings{Weighting: Weighting{Weights: Rule("greedy")}}, "weights"},
		{Settings{KernelSpec: KernelSpec{PoolIterations: -2}}, "pool_iterations"},
		{Settings{MAPSearch: MAPSearch{MAPNewtonTol: -0.5}}, "map_newton_tol"},
		{Settings{Candidates: Candidates{Scale: ScaleTarget, CandidateInit: InitSVGD}}, "scale"},
		{Settings{Candidates: Candidates{Scale: ScaleTarget}, KernelSpec: KernelSpec{Z: ZExact}}, "scale"},
	} {
		err := c.s.Validate()
		e, ok := setting.As(err)
		if !ok || e.Field != c.field {
			t.Errorf("%+v: Validate() = %v, want an error on %s", c.s, err, c.field)
		}
		if _, err := sampler.Set(Run(context.Background(), target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }},
			particle.Start{}, c.s, rand.NewPCG(1, 2), nil)); err == nil {
			t.Errorf("%+v: Run accepted invalid settings", c.s)
		}
	}
	if err := (Settings{}).Validate(); err != nil {
		t.Errorf("zero Settings: %v", err)
	}
	for _, ok := range []Settings{
		{Candidates: Candidates{First: FirstTrained}},
		{Candidates: Candidates{First: FirstTrained, Scale: ScaleGiven}},
		{Candidates: Candidates{First: FirstTrained, Scale: ScaleLaplace}},
		{Candidates: Candidates{First: FirstGiven, Scale: ScaleGiven}},
	} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	// Settings that the run's Inputs contradict, or invalid Inputs, are a
	// *setting.Error from Run, before any evaluation.
	one := target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }}
	for _, c := range []struct {
		s     Settings
		in    Inputs
		start particle.Start
		field string
	}{
		{Settings{Candidates: Candidates{Scale: ScaleGiven}}, Inputs{}, particle.Start{}, "scale"},
		{Settings{Candidates: Candidates{Scale: ScaleLaplace}}, Inputs{Scales: []float64{1}}, particle.Start{}, "scale"},
		{Settings{}, Inputs{Scales: []float64{0}}, particle.Start{}, "scales"},
		{Settings{}, Inputs{Scales: []float64{math.Inf(1)}}, particle.Start{}, "scales"},
		{Settings{}, Inputs{Train: &optim.Settings{}}, particle.Start{}, "start"},
		{Settings{Candidates: Candidates{First: FirstMAP}}, Inputs{Train: &optim.Settings{}}, particle.Start{}, "start"},
		{Settings{Candidates: Candidates{Scale: ScaleTarget}}, Inputs{Pool: mat.NewDense(3, 1, nil)}, particle.Start{}, "scale"},
		{Settings{Candidates: Candidates{Scale: ScaleTarget}}, Inputs{}, particle.Start{Particles: mat.NewDense(3, 1, nil)}, "scale"},
		{Settings{Candidates: Candidates{Scale: ScaleTarget}}, Inputs{Scales: []float64{1}}, particle.Start{}, "scale"},
	} {
		if err := c.s.Validate(); err != nil {
			t.Errorf("%+v: Validate() = %v, want nil (the conflict is with the inputs)", c.s, err)
		}
		var calls int
		counted := target.Func{D: 1, F: func(x, g []float64) float64 { calls++; return one.F(x, g) }}
		c.s.Inputs = c.in
		_, err := sampler.Set(Run(context.Background(), counted, c.start, c.s, rand.NewPCG(1, 2), nil))
		if e, ok := setting.As(err); !ok || e.Field != c.field || calls != 0 {
			t.Errorf("%+v with %+v: Run error %v after %d evaluations, want a setting.Error on %s before any", c.s, c.in, err, calls, c.field)
		}
	}
	for _, c := range []struct {
		s  Settings
		in Inputs
	}{
		{Settings{Candidates: Candidates{First: FirstTrained, Scale: ScaleGiven}}, Inputs{Train: &optim.Settings{Steps: 10}}},
		{Settings{Candidates: Candidates{First: FirstGiven, Scale: ScaleGiven}}, Inputs{Scales: []float64{0.5}}},
		{Settings{}, Inputs{Scales: []float64{0.5}}},
	} {
		g := newGiven(particle.Start{}, c.in)
		if err := g.check(&c.s); err != nil {
			t.Errorf("%+v with %+v: %v", c.s, c.in, err)
		}
	}
	if err := (Settings{KernelSpec: KernelSpec{Kernel: RFFKernel, Features: 10}}).Validate(); err != nil {
		t.Errorf("rff with features: %v", err)
	}
}

// The text forms round-trip through TOML and JSON, and the automatic values
// are omitted.
func TestSettingsText(t *testing.T) {
	src := `start = "prior"
init = "svgd"
pick = "weight"
scale = "laplace"
direction = "frozen"
weights = "line-search"
z = "pool"
kernel = "rff"
features = 50
`
	var s Settings
	md, err := toml.Decode(src, &s)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("undecoded keys %v", u)
	}
	want := Settings{Candidates: Candidates{First: FirstPrior, CandidateInit: InitSVGD, Pick: PickByWeight, Scale: ScaleLaplace}, LMO: LMO{Direction: Frozen},
		Weighting: Weighting{Weights: LineSearch}, KernelSpec: KernelSpec{Z: ZPool, Kernel: RFFKernel, Features: 50}}
	b, _ := json.Marshal(s)
	wb, _ := json.Marshal(want)
	if string(b) != string(wb) {
		t.Fatalf("decoded %s, want %s", b, wb)
	}
	const wantJSON = `{"start":"prior","init":"svgd","pick":"weight","scale":"laplace","direction":"frozen",` +
		`"weights":"line-search","z":"pool","kernel":"rff","features":50}`
	if string(b) != wantJSON {
		t.Errorf("JSON %s, want %s", b, wantJSON)
	}
	var back Settings
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Weights != LineSearch || back.First != FirstPrior || back.Kernel != RFFKernel {
		t.Errorf("JSON round trip gave %+v", back)
	}
	if b, _ := json.Marshal(Settings{}); string(b) != "{}" {
		t.Errorf("zero Settings encode as %s, want {}", b)
	}
	if _, err := toml.Decode(`weights = "bogus"`, &s); err == nil {
		t.Error("unknown weight rule accepted")
	}
}

// The names of the defaults that have one, pick = "uniform" and kernel =
// "rbf", decode to the empty text, so that a file naming them records the
// same settings as one that does not (as when the enumerations were
// integers, whose zero was omitted); "start = "svgd"" and every other
// constant decode to themselves, and an unknown text is refused at decode
// by an error naming the key and listing the texts.
func TestSettingsTextDefaults(t *testing.T) {
	var s Settings
	if _, err := toml.Decode("pick = \"uniform\"\nkernel = \"rbf\"\n", &s); err != nil {
		t.Fatal(err)
	}
	if s.Pick != "" || s.Kernel != "" {
		t.Errorf("pick %q kernel %q, want the empty texts", s.Pick, s.Kernel)
	}
	if b, _ := json.Marshal(s); string(b) != "{}" {
		t.Errorf("JSON %s, want {}", b)
	}
	for _, v := range firstValues {
		var st First
		if err := st.UnmarshalText([]byte(v)); err != nil || st != v {
			t.Errorf("start %q reads as %q (%v)", v, st, err)
		}
	}
	for _, c := range []struct{ src, key, list string }{
		{`scale = "sideways"`, "scale", `["bandwidth" "laplace" "given" "target"]`},
		{`pick = "first"`, "pick", `["uniform" "weight"]`},
		{`kernel = "imq"`, "kernel", `["rbf" "rff"]`},
		{`start = "auto"`, "start", `["map" "prior" "given" "trained" "svgd"]`},
	} {
		var s Settings
		_, err := toml.Decode(c.src, &s)
		if err == nil || !strings.Contains(err.Error(), c.key+" = ") || !strings.Contains(err.Error(), c.list) {
			t.Errorf("%s: error %v, want one naming %s and listing %s", c.src, err, c.key, c.list)
		}
	}
	bad := Settings{LMO: LMO{Direction: "sideways"}}
	if e, ok := setting.As(bad.Validate()); !ok || e.Field != "direction" {
		t.Errorf("direction sideways: Validate gave %v", bad.Validate())
	}
}

// Zero-value Settings with only a start point run on a plain target.Func
// (no prior): the first particle is the MAP found from X0, the run is in
// the coordinates of the Laplace fit there (the bandwidth
// laplace.WhitenedBandwidth(1) = 0.67 posterior sd), and it stops, within
// the ceiling, once the Stein-weighted particles' KSD² is that of 1000
// independent draws. On N(1, 0.5²) their weighted mean and variance are
// then close to the truth.
func TestZeroSettingsPlainFunc(t *testing.T) {
	const mu, sd = 1.0, 0.5
	f := target.Func{D: 1, F: func(x, g []float64) float64 {
		z := (x[0] - mu) / sd
		g[0] = -z / sd
		return -z * z / 2
	}}
	var snaps int
	rec := particle.RecorderFunc(func(s particle.Snapshot) error { snaps++; return nil })
	mmdfwRes, err := Run(context.Background(), f, particle.Start{X0: []float64{-3}}, Settings{}, rand.NewPCG(3, 4), rec)
	res, _ := mmdfwRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Set.Len(); n < 2 || n >= DefaultCeiling || snaps != n || res.Set.Diag.Flagged() {
		t.Fatalf("%d particles, %d snapshots, flags %q: want as many snapshots as particles, below the ceiling, no flag",
			n, snaps, res.Set.Diag.Reason())
	}
	if math.Abs(res.Bandwidth-0.6745) > 1e-3 {
		t.Errorf("bandwidth %v in whitened coordinates, want 0.6745", res.Bandwidth)
	}
	m := res.Set.Mean(nil)[0]
	var v float64
	for i, w := range res.Set.W {
		dx := res.Set.X.At(i, 0) - m
		v += w * dx * dx
	}
	if math.Abs(m-mu) > 0.1 || math.Abs(math.Sqrt(v)-sd) > 0.15 {
		t.Errorf("mean %v sd %v, want %v and %v", m, math.Sqrt(v), mu, sd)
	}
}
