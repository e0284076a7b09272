package particle

import (
	"errors"
	"math"
	"testing"
)

func TestNonFinite(t *testing.T) {
	g := []float64{1, -2, 3}
	if !FiniteEval(-1e300, g) || NonFinite(Site{}, 0, g) != nil {
		t.Fatal("finite values reported as not finite")
	}
	site := Site{Method: "mmdfw", Iteration: 6, Point: "candidate", Index: 6, Stage: "LMO step", Step: 3}
	for _, c := range []struct {
		lp   float64
		g    []float64
		want string
	}{
		{math.NaN(), g, "mmdfw: iteration 6, candidate 6 (LMO step 3): non-finite log density NaN"},
		{math.Inf(-1), g, "mmdfw: iteration 6, candidate 6 (LMO step 3): non-finite log density -Inf"},
		{0, []float64{1, math.Inf(1), math.NaN()}, "mmdfw: iteration 6, candidate 6 (LMO step 3): non-finite score: coordinate 1 is +Inf"},
	} {
		if FiniteEval(c.lp, c.g) {
			t.Errorf("FiniteEval(%v, %v) = true", c.lp, c.g)
		}
		err := NonFinite(site, c.lp, c.g)
		var nf *NonFiniteError
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrNonFinite) || !errors.As(err, &nf) || nf.Site != site {
			t.Errorf("NonFinite = %v, want %q", err, c.want)
		}
	}
	if got := NonFinite(Site{Method: "sgld", Iteration: 17, Point: "chain", Index: 2}, math.NaN(), g).Error(); got != "sgld: iteration 17, chain 2: non-finite log density NaN" {
		t.Errorf("without a stage: %q", got)
	}
	if a := testing.AllocsPerRun(100, func() {
		if !FiniteEval(1, g) {
			t.Fatal("not finite")
		}
	}); a != 0 {
		t.Errorf("FiniteEval allocates %v times", a)
	}
}

// Clone copies the diagnostics: changing the copy leaves the original.
func TestCloneDiagnostics(t *testing.T) {
	var s Set
	s.W = []float64{1}
	s.Diag.Set("kish_ess", 1)
	s.Diag.Raise("mode", "a reason")
	c := s.Clone()
	c.Diag.Set("kish_ess", 2)
	c.Diag.Flags[0].Code = "other"
	if s.Diag.Values["kish_ess"] != 1 || s.Diag.Flags[0].Code != "mode" || c.Diag.Reason() != "other: a reason" {
		t.Errorf("original %v, copy %v", s.Diag, c.Diag)
	}
}
