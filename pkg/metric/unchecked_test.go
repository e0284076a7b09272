package metric

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

func unchecked(d particle.Diagnostics) string {
	c := make([]string, len(d.Unchecked))
	for i, f := range d.Unchecked {
		c[i] = f.Code
	}
	return strings.Join(c, ",")
}

// A set given no scores (fewer than MinScored particles: SplitBudget
// scores none) lists the Stein and mode checks as unchecked, saying why;
// one given scores but no probe lists the mode check; one given both
// lists none. DiagnoseNarrow lists "narrow" when the ESS is below
// NarrowMinESS·d.
func TestUncheckedRecorded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	draws := func(n int) (*mat.Dense, []float64) {
		X := mat.NewDense(n, 2, nil)
		for i := range n {
			X.Set(i, 0, rng.NormFloat64())
			X.Set(i, 1, 2*rng.NormFloat64())
		}
		w := make([]float64, n)
		for i := range w {
			w[i] = 1
		}
		return X, w
	}
	if s, p := SplitBudget(10, 1000); s != 0 || p != 0 {
		t.Fatalf("SplitBudget(10, 1000) = %d, %d: the premise (no scores below MinScored) no longer holds", s, p)
	}
	X, w := draws(10)
	var d particle.Diagnostics
	DiagnoseSet(&d, SetDiagnosis{X: X, W: w})
	if got := unchecked(d); got != "stein,mode" || !strings.Contains(d.Unchecked[0].Reason, "its 10 particles are fewer than the 20") || d.Flagged() {
		t.Errorf("10 particles, no scores: unchecked %q (%v), flags %q", got, d.Unchecked, d.Reason())
	}

	X, w = draws(40)
	S, lp := scored(normal2, X)
	d = particle.Diagnostics{}
	DiagnoseSet(&d, SetDiagnosis{X: X, W: w, S: S, LogP: lp, Target: normal2})
	if got := unchecked(d); got != "mode" || !strings.Contains(d.Unchecked[0].Reason, "no probe") {
		t.Errorf("40 particles, no probes: unchecked %q (%v)", got, d.Unchecked)
	}
	d = particle.Diagnostics{}
	DiagnoseSet(&d, SetDiagnosis{X: X, W: w, S: S, LogP: lp, Target: normal2, Probes: 64})
	if !d.Checked() || d.Flagged() {
		t.Errorf("40 draws of the target, scored and probed: unchecked %q, flags %q", unchecked(d), d.Reason())
	}
	DiagnoseNarrow(&d, "test", X, w, S)
	if !d.Checked() {
		t.Errorf("40 draws in 2 dimensions: narrow unchecked: %v", d.Unchecked)
	}

	X, w = draws(3) // ESS 3 < NarrowMinESS·2
	S, _ = scored(normal2, X)
	d = particle.Diagnostics{}
	DiagnoseNarrow(&d, "test", X, w, S)
	if got := unchecked(d); got != "narrow" {
		t.Errorf("3 draws in 2 dimensions: unchecked %q, want narrow", got)
	}
}

// CeilingFlagged flags a set at its ceiling whose KSD² is that of fewer
// independent draws than its size, and a NaN.
func TestCeilingFlagged(t *testing.T) {
	for _, c := range []struct {
		size float64
		n    int
		want bool
	}{{9.99, 10, true}, {10, 10, false}, {440, 100, false}, {0, 1, true}, {math.NaN(), 10, true}} {
		if got := CeilingFlagged(c.size, c.n); got != c.want {
			t.Errorf("CeilingFlagged(%v, %d) = %v", c.size, c.n, got)
		}
	}
}
