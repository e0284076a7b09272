package laplace

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// TestWhitenedTarget checks the whitened target's score against central
// differences of its log density, for a dense and a diagonal whitening, on
// a plain target and a Stochastic one (full data and a minibatch), and
// that ToX and ToZ, GradToZ and GradToX invert each other.
func TestWhitenedTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lr := syntheticLR(60, 3, rng)
	g := newGaussian(4, rng)
	for _, c := range []struct {
		name string
		t    target.Target
	}{{"gaussian", g}, {"logistic", lr}} {
		d := c.t.Dim()
		sc, err := FitAtMAP(context.Background(), c.t, make([]float64, d), MAPSettings{}, FitSettings{})
		if err != nil {
			t.Fatal(err)
		}
		diag := &Whitening{M: sc.Whitening.M, SD: sc.Approx.SD}
		for _, w := range []*Whitening{sc.Whitening, diag} {
			wt := w.Target(c.t)
			z := testutil.RandVec(rng, d, 1)
			grad := make([]float64, d)
			wt.LogProbGrad(z, grad)
			f := func(v []float64) float64 { return wt.LogProbGrad(v, make([]float64, d)) }
			testutil.CheckGrad(t, c.name, f, z, grad)
			if st, ok := wt.(target.Stochastic); ok {
				if st.NData() != lr.NData() {
					t.Errorf("%s: NData %d, want %d", c.name, st.NData(), lr.NData())
				}
				batch := []int{3, 7, 7, 20}
				st.MinibatchLogProbGrad(z, grad, batch)
				fb := func(v []float64) float64 { return st.MinibatchLogProbGrad(v, make([]float64, d), batch) }
				testutil.CheckGrad(t, c.name+" minibatch", fb, z, grad)
			} else if c.name == "logistic" {
				t.Error("the whitened logistic regression is not Stochastic")
			}
			// GradToX inverts GradToZ: from the whitened score at z, the
			// target's own score at x = ToX(z).
			x := make([]float64, d)
			w.ToX(x, z)
			gz, gx, want := make([]float64, d), make([]float64, d), make([]float64, d)
			wt.LogProbGrad(z, gz)
			c.t.LogProbGrad(x, want)
			w.GradToX(gx, gz)
			for j := range want {
				if math.Abs(gx[j]-want[j]) > 1e-9*(1+math.Abs(want[j])) {
					t.Errorf("%s: GradToX[%d] = %v, want %v", c.name, j, gx[j], want[j])
				}
			}
			back := make([]float64, d)
			w.ToZ(back, x)
			for j := range z {
				if math.Abs(back[j]-z[j]) > 1e-10 {
					t.Errorf("%s: ToZ(ToX(z))[%d] = %v, want %v", c.name, j, back[j], z[j])
				}
			}
		}
	}
}

// TestWhitenedGaussianIsStandard: the whitening of the Laplace fit of a
// Gaussian target at its mode makes it N(0, I) exactly, so that its score
// at z is −z.
func TestWhitenedGaussianIsStandard(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := newGaussian(5, rng)
	sc, err := FitAtMAP(context.Background(), g, make([]float64, 5), MAPSettings{}, FitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	wt := sc.Whitening.Target(g)
	z := testutil.RandVec(rng, 5, 1)
	grad := make([]float64, 5)
	wt.LogProbGrad(z, grad)
	for j := range z {
		if math.Abs(grad[j]+z[j]) > 1e-5 {
			t.Errorf("score %d = %v, want %v", j, grad[j], -z[j])
		}
	}
	if sc.GradEvals != sc.MAP.GradEvals+sc.Approx.GradEvals || sc.Approx.GradEvals != 10 {
		t.Errorf("cost %d = MAP %d + fit %d, want the fit's 2d = 10", sc.GradEvals, sc.MAP.GradEvals, sc.Approx.GradEvals)
	}
}

// TestWhitenedRecorder: snapshots reach the caller in x, with the cost
// before the run added; a nil recorder stays nil.
func TestWhitenedRecorder(t *testing.T) {
	w := &Whitening{M: []float64{1, -1}, SD: []float64{2, 0.5}}
	if w.Recorder(nil, 1, 2) != nil {
		t.Error("a nil recorder was wrapped")
	}
	var got particle.Snapshot
	rec := w.Recorder(particle.RecorderFunc(func(s particle.Snapshot) error { got = s; return nil }), 1.5, 7)
	z := mat.NewDense(2, 2, []float64{0, 0, 1, 2})
	if err := rec.Record(particle.Snapshot{Step: 3, X: z, Seconds: 0.5, GradEvals: 3}); err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(2, 2, []float64{1, -1, 3, 0})
	if !mat.Equal(got.X, want) || got.Seconds != 2 || got.GradEvals != 10 || got.Step != 3 {
		t.Errorf("snapshot X %v, %v s, %d gradients; want %v, 2 s, 10", mat.Formatted(got.X), got.Seconds, got.GradEvals, mat.Formatted(want))
	}
}

// WhitenedBandwidth is √(median of χ²_d): 2h² is the median squared
// distance of two standard normal draws, checked by Monte Carlo.
func TestWhitenedBandwidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range []int{1, 5, 20} {
		const n = 20001
		sq := make([]float64, n)
		for i := range sq {
			var s float64
			for j := 0; j < d; j++ {
				v := rng.NormFloat64() - rng.NormFloat64()
				s += v * v
			}
			sq[i] = s
		}
		var below int
		h := WhitenedBandwidth(d)
		for _, v := range sq {
			if v < 2*h*h {
				below++
			}
		}
		// The fraction below the median has a standard error of 0.0035.
		if f := float64(below) / n; math.Abs(f-0.5) > 0.015 {
			t.Errorf("d=%d: %.4f of squared distances below 2h², want 0.5", d, f)
		}
	}
}
