package samplertest_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// draws returns n exact draws of k.
func draws(k *samplertest.KnownTarget, n int, rng *rand.Rand) *mat.Dense {
	x := mat.NewDense(n, k.Dim(), nil)
	for i := range n {
		k.Draw(rng, x.RawRowView(i))
	}
	return x
}

// drawCount returns n, or n/10 for a target above 10 dimensions, whose draws
// and checks cost d² each (gauss50).
func drawCount(k *samplertest.KnownTarget, n int) int {
	if k.Dim() > 10 {
		return n / 10
	}
	return n
}

// Every score agrees with central finite differences of the log density at
// exact draws (and the half-line's is −∞ with a zero score outside).
func TestKnownTargetsGradient(t *testing.T) {
	for _, k := range samplertest.KnownTargets() {
		t.Run(k.Name, func(t *testing.T) {
			d := k.Dim()
			x := draws(k, 20, rand.New(rand.NewPCG(1, 2)))
			grad, g2 := make([]float64, d), make([]float64, d)
			for i := range 20 {
				xi := x.RawRowView(i)
				k.LogProbGrad(xi, grad)
				for j := range d {
					h := 1e-5 * max(1, math.Abs(xi[j]))
					xp := append([]float64(nil), xi...)
					xp[j] += h
					fp := k.LogProbGrad(xp, g2)
					xp[j] -= 2 * h
					fm := k.LogProbGrad(xp, g2)
					fd := (fp - fm) / (2 * h)
					if math.Abs(fd-grad[j]) > 1e-5*(1+math.Abs(grad[j])) {
						t.Errorf("draw %d, coordinate %d: score %.9g, finite difference %.9g", i, j, grad[j], fd)
					}
				}
			}
			if k.In != nil {
				out := make([]float64, d)
				for j := range out {
					out[j] = -1
				}
				grad[0] = 7
				if lp := k.LogProbGrad(out, grad); !math.IsInf(lp, -1) || grad[0] != 0 {
					t.Errorf("outside the support: log p %v, score %v, want −Inf and 0", lp, grad)
				}
			}
		})
	}
}

// The exact draws satisfy the Stein identities of the score,
// E ∂ⱼ log p = 0 and E (xⱼ − mⱼ) ∂ⱼ log p = −1: Draw samples the density
// of LogProbGrad.
func TestKnownTargetsStein(t *testing.T) {
	for _, k := range samplertest.KnownTargets() {
		t.Run(k.Name, func(t *testing.T) {
			d, n := k.Dim(), drawCount(k, 100000)
			x := draws(k, n, rand.New(rand.NewPCG(3, 4)))
			grad := make([]float64, d)
			var s1, s2, q1, q2 = make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
			for i := range n {
				xi := x.RawRowView(i)
				k.LogProbGrad(xi, grad)
				for j := range d {
					a, b := grad[j], (xi[j]-k.Mean[j])*grad[j]
					s1[j] += a
					q1[j] += a * a
					s2[j] += b
					q2[j] += b * b
				}
			}
			for j := range d {
				for _, c := range []struct {
					name       string
					s, q, want float64
				}{{"E ∂log p", s1[j], q1[j], 0}, {"E (x−m) ∂log p", s2[j], q2[j], -1}} {
					m := c.s / float64(n)
					se := math.Sqrt((c.q/float64(n) - m*m) / float64(n))
					if math.Abs(m-c.want) > 5*se {
						t.Errorf("coordinate %d: %s = %.4f ± %.4f, want %v", j, c.name, m, se, c.want)
					}
				}
			}
		})
	}
}

// Each check's Exact and SD agree with many exact draws: the mean of F
// within 5 standard errors, and its standard deviation within 5% where F
// has a fourth moment (not the variance of the Student t, whose
// F = (x − m)² has none).
func TestKnownTargetsExact(t *testing.T) {
	for _, k := range samplertest.KnownTargets() {
		t.Run(k.Name, func(t *testing.T) {
			n := drawCount(k, 200000)
			x := draws(k, n, rand.New(rand.NewPCG(5, 6)))
			for _, c := range k.Checks {
				var s, q float64
				for i := range n {
					f := c.F(x.RawRowView(i))
					s += f
					q += f * f
				}
				m := s / float64(n)
				sd := math.Sqrt(q/float64(n) - m*m)
				if se := c.SD / math.Sqrt(float64(n)); math.Abs(m-c.Exact) > 5*se {
					t.Errorf("%s: %d draws give %.5f, exact %.5f ± %.5f", c.Name, n, m, c.Exact, se)
				}
				heavy := k.Name == "student5" && c.Kind == samplertest.CheckVar
				if !heavy && math.Abs(sd/c.SD-1) > 0.05 {
					t.Errorf("%s: %d draws give sd %.5f, stated %.5f", c.Name, n, sd, c.SD)
				}
			}
			for j := range k.Dim() {
				if k.Var[j] <= 0 {
					t.Errorf("Var[%d] = %v", j, k.Var[j])
				}
			}
			if k.In != nil && !k.In(k.X0) {
				t.Errorf("X0 %v outside the support", k.X0)
			}
		})
	}
}

// exact is a method of its own that draws n independent points of a known
// target and gives them equal weights; transform (nil: none) then moves
// each draw, and finish (nil: none) edits the set.
func exact(n int, transform func(k *samplertest.KnownTarget, x []float64), finish func(*particle.Set) error) samplertest.Method {
	return samplertest.Method{Zero: sampler.Func(
		func(_ context.Context, t target.Target, _ particle.Start, src rand.Source, _ particle.Recorder) (particle.Set, error) {
			k := t.(*samplertest.KnownTarget)
			x := draws(k, n, rand.New(src))
			if transform != nil {
				for i := range n {
					transform(k, x.RawRowView(i))
				}
			}
			s := particle.Set{X: x, W: particle.Equal(n)}
			var err error
			if finish != nil {
				err = finish(&s)
			}
			return s, err
		})}
}

// Exact independent draws pass every target, on the suite's seed and others.
func TestKnownExactDrawsPass(t *testing.T) {
	samplertest.Known(t, exact(1000, nil, nil), samplertest.KnownOptions{})
	for seed := uint64(1); seed <= 5; seed++ {
		for _, k := range samplertest.KnownTargets() {
			for _, n := range []int{100, 1000} {
				r := samplertest.RunKnown(context.Background(), exact(n, nil, nil), k, seed)
				if r.Verdict != samplertest.Pass {
					t.Errorf("seed %d, %s, %d draws: %v: %s", seed, k.Name, n, r.Verdict, r.Why)
				}
			}
		}
	}
}

// Wrong sets are caught: too narrow, missing a mode, outside the support,
// empty, non-finite; flagged and erring ones are told apart.
func TestKnownCatchesWrongSets(t *testing.T) {
	narrow := func(k *samplertest.KnownTarget, x []float64) {
		for j := range x {
			x[j] = k.Mean[j] + 0.5*(x[j]-k.Mean[j])
		}
	}
	flag := func(s *particle.Set) error {
		s.Diag.Raise("test", "raised by the test")
		return nil
	}
	ctx := context.Background()
	for _, k := range samplertest.KnownTargets() {
		if r := samplertest.RunKnown(ctx, exact(1000, narrow, nil), k, 0); r.Verdict != samplertest.Fail {
			t.Errorf("%s: half the spread: %v, want FAIL", k.Name, r.Verdict)
		}
		if r := samplertest.RunKnown(ctx, exact(1000, narrow, flag), k, 0); r.Verdict != samplertest.Flagged {
			t.Errorf("%s: half the spread, flagged: %v, want flagged", k.Name, r.Verdict)
		}
		if r := samplertest.RunKnown(ctx, exact(1000, nil, flag), k, 0); r.Verdict != samplertest.Pass {
			t.Errorf("%s: exact draws, flagged: %v, want pass", k.Name, r.Verdict)
		}
		boom := func(*particle.Set) error { return errors.New("boom") }
		if r := samplertest.RunKnown(ctx, exact(10, nil, boom), k, 0); r.Verdict != samplertest.Errored || r.Why != "boom" {
			t.Errorf("%s: error: %v %q, want error boom", k.Name, r.Verdict, r.Why)
		}
		empty := func(s *particle.Set) error { *s = particle.Set{}; return nil }
		if r := samplertest.RunKnown(ctx, exact(10, nil, empty), k, 0); r.Verdict != samplertest.Fail {
			t.Errorf("%s: empty set: %v, want FAIL", k.Name, r.Verdict)
		}
		nan := func(s *particle.Set) error { s.X.Set(3, 0, math.NaN()); return nil }
		if r := samplertest.RunKnown(ctx, exact(10, nil, nan), k, 0); r.Verdict != samplertest.Fail {
			t.Errorf("%s: NaN particle: %v, want FAIL", k.Name, r.Verdict)
		}
		// A method's own ESS, when smaller than Kish's, sets the tolerances.
		ess := func(s *particle.Set) error { s.Diag.Set("ess_bulk_min", 60); return nil }
		if r := samplertest.RunKnown(ctx, exact(1000, nil, ess), k, 0); r.ESS != 60 {
			t.Errorf("%s: ESS %v, want the method's 60", k.Name, r.ESS)
		}
	}
	// One mode of the mixtures only: the weights are wrong.
	right := func(k *samplertest.KnownTarget, x []float64) { x[0] = math.Abs(x[0]) }
	for _, name := range []string{"mix1", "mix2"} {
		r := samplertest.RunKnown(ctx, exact(1000, right, nil), samplertest.KnownTargetByName(name), 0)
		if r.Verdict != samplertest.Fail || !strings.Contains(r.Why, "P(x1<0)") {
			t.Errorf("%s: one mode: %v %q, want FAIL with the weight", name, r.Verdict, r.Why)
		}
	}
	// Particles outside the support fail, flagged or not.
	shift := func(_ *samplertest.KnownTarget, x []float64) { x[0] -= 1.5 }
	for _, f := range []func(*particle.Set) error{nil, flag} {
		r := samplertest.RunKnown(ctx, exact(1000, shift, f), samplertest.KnownTargetByName("gamma"), 0)
		if r.Verdict != samplertest.Fail || r.Outside == 0 {
			t.Errorf("gamma shifted out of the support: %v with %d outside, want FAIL", r.Verdict, r.Outside)
		}
	}
}

// The table has a line per row with the verdict's words.
func TestWriteKnownTable(t *testing.T) {
	ctx := context.Background()
	k := samplertest.KnownTargetByName("mix1")
	flag := func(s *particle.Set) error { s.Diag.Raise("collapse", "one mode"); return nil }
	left := func(_ *samplertest.KnownTarget, x []float64) { x[0] = math.Abs(x[0]) }
	rows := []samplertest.KnownRow{
		{Method: "exact", Result: samplertest.RunKnown(ctx, exact(1000, nil, nil), k, 0)},
		{Method: "onemode", Result: samplertest.RunKnown(ctx, exact(1000, left, nil), k, 0)},
		{Method: "flagged", Result: samplertest.RunKnown(ctx, exact(1000, left, flag), k, 0)},
		{Method: "boom", Result: samplertest.RunKnown(ctx, exact(10, nil, func(*particle.Set) error { return errors.New("boom") }), k, 0)},
	}
	var b strings.Builder
	if err := samplertest.WriteKnownTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want a header and 4 rows:\n%s", len(lines), b.String())
	}
	for i, want := range []string{"P (exact)", "pass", "FAIL: ", "flagged: collapse: one mode", "error: boom"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d lacks %q: %s", i, want, lines[i])
		}
	}
	if !strings.Contains(lines[1], "P(x1<0)=") || !strings.Contains(lines[1], "(0.301)") {
		t.Errorf("the weight column: %s", lines[1])
	}
	// The funnel's nine P(|xᵢ| < 1) show as one range.
	b.Reset()
	r := samplertest.RunKnown(ctx, exact(1000, nil, nil), samplertest.KnownTargetByName("funnel"), 0)
	if err := samplertest.WriteKnownTable(&b, []samplertest.KnownRow{{Method: "exact", Result: r}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "P(v<-3)=") || !strings.Contains(b.String(), "P(|x2|<1)…P(|x10|<1)=") {
		t.Errorf("the funnel's probabilities:\n%s", b.String())
	}
}
