package pdbcheck

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
	"github.com/mmdfw/mmdfw/pkg/posteriordb"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// fixture is the non-centred eight schools model on two made-up schools
// with a made-up reference: two chains of 200 draws whose columns name the
// parameters in the reverse of the model's order (τ, μ, θ₂, θ₁).
func fixture(t *testing.T) *Posterior {
	t.Helper()
	var data map[string]json.RawMessage
	if err := json.Unmarshal([]byte(`{"J": 2, "y": [10, -3], "sigma": [8, 12]}`), &data); err != nil {
		t.Fatal(err)
	}
	m, err := pdbmodel.New("eight_schools_noncentered", data)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	chains := make([]*mat.Dense, 2)
	for c := range chains {
		chains[c] = mat.NewDense(200, 4, nil)
		for i := 0; i < 200; i++ {
			tau := math.Exp(rng.NormFloat64())
			mu := 2 + 4*rng.NormFloat64()
			chains[c].SetRow(i, []float64{tau, mu, mu + tau*rng.NormFloat64(), mu + tau*rng.NormFloat64()})
		}
	}
	ref, err := posteriordb.NewReference([]string{"tau", "mu", "theta[2]", "theta[1]"}, chains)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New("fixture", m, ref, posteriordb.CompareSettings{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConstrain checks that draws are mapped to the reference's columns
// by name, that the reference mean maps back to itself, and that an
// overflowing transform is an error.
func TestConstrain(t *testing.T) {
	p := fixture(t)
	u := []float64{0.5, -1, 3, 0.2} // θ̃₁, θ̃₂, μ, log τ
	X, err := p.Constrain(mat.NewDense(1, 4, u))
	if err != nil {
		t.Fatal(err)
	}
	tau := math.Exp(0.2)
	want := []float64{tau, 3, 3 - tau, 3 + 0.5*tau}
	for j, w := range want {
		if math.Abs(X.At(0, j)-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", p.Cmp.Names[j], X.At(0, j), w)
		}
	}
	m, err := p.ReferenceMean()
	if err != nil {
		t.Fatal(err)
	}
	X, err = p.Constrain(mat.NewDense(1, 4, m))
	if err != nil {
		t.Fatal(err)
	}
	for j, w := range p.Cmp.Mean {
		if math.Abs(X.At(0, j)-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("reference mean %s: %v back as %v", p.Cmp.Names[j], w, X.At(0, j))
		}
	}
	if _, err := p.Constrain(mat.NewDense(1, 4, []float64{0, 0, 0, 1000})); err == nil {
		t.Error("τ = exp(1000) constrained without an error")
	}
	if _, err := p.Constrain(mat.NewDense(1, 3, nil)); err == nil {
		t.Error("draws of dimension 3 constrained without an error")
	}
}

// TestRunMethod runs made-up samplers through RunMethod: the reference's
// own draws are close (the set's sd is the plug-in one, the reference's the
// sample sd: ratio √((n−1)/n)), a collapsed set is wrong unless flagged, an error
// and a timeout are reported as such, and the cost is the last snapshot's.
func TestRunMethod(t *testing.T) {
	p := fixture(t)
	n := p.Reference.Len()
	U := mat.NewDense(n, 4, nil)
	for i := 0; i < n; i++ {
		c := make([]float64, 4)
		for j, k := range p.perm {
			c[k] = p.Reference.Draws.At(i, j)
		}
		if _, err := p.Model.Unconstrain(U.RawRowView(i), c); err != nil {
			t.Fatal(err)
		}
	}
	fixed := func(X *mat.Dense, flag bool) Method {
		return Method{Name: "fixed", Sampler: sampler.Func(func(ctx context.Context, _ target.Target, _ particle.Start, _ rand.Source, rec particle.Recorder) (particle.Set, error) {
			r, _ := X.Dims()
			w := make([]float64, r)
			for i := range w {
				w[i] = 1 / float64(r)
			}
			s := particle.Set{X: X, W: w}
			if flag {
				s.Diag.Raise("test", "raised by the test")
			}
			return s, rec.Record(particle.Snapshot{X: X, W: w, GradEvals: 42})
		})}
	}
	collapsed := mat.NewDense(3, 4, []float64{0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0})
	failing := Method{Name: "failing", Sampler: sampler.Func(func(context.Context, target.Target, particle.Start, rand.Source, particle.Recorder) (particle.Set, error) {
		return particle.Set{}, errors.New("no luck")
	})}
	slow := Method{Name: "slow", Sampler: sampler.Func(func(ctx context.Context, _ target.Target, _ particle.Start, _ rand.Source, _ particle.Recorder) (particle.Set, error) {
		<-ctx.Done()
		return particle.Set{}, ctx.Err()
	})}
	ctx := context.Background()
	for _, c := range []struct {
		m    Method
		want Verdict
	}{
		{fixed(U, false), Close},
		{fixed(U, true), FlaggedClose},
		{fixed(collapsed, false), Wrong},
		{fixed(collapsed, true), Flagged},
		{failing, Errored},
		{slow, TimedOut},
	} {
		r := p.RunMethod(ctx, c.m, StartInit, make([]float64, 4), 1, 50*time.Millisecond)
		if v := r.Judge(); v != c.want {
			t.Errorf("%s: %s, want %s (%+v)", c.m.Name, v, c.want, r.Summary)
		}
		if c.want == Close {
			if r.GradEvals != 42 || r.N != n || !(r.Summary.MaxMeanErr < 1e-9) || math.Abs(r.Summary.MinSDRatio-math.Sqrt(float64(n-1)/float64(n))) > 1e-12 || !(r.Summary.MMD2 < 1e-9) {
				t.Errorf("the reference against itself: %+v, %d grad evals, %d particles", r.Summary, r.GradEvals, r.N)
			}
		}
	}
}
