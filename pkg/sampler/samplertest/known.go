package samplertest

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// KnownOptions select what Known runs.
type KnownOptions struct {
	// Targets names the targets to run (names of KnownTargets); nil runs
	// them all. An unknown name fails the test.
	Targets []string
	// Seed is mixed into every target's source, rand.NewPCG(h, Seed) with
	// h a hash of the target's name; the default 0 is the suite's fixed
	// seed. Another seed reruns the suite on fresh randomness.
	Seed uint64
}

// Verdict is the judgement of one run on one known target.
type Verdict int

const (
	// Pass: no error, no particle outside the support, every check within
	// its tolerance (the set may still be flagged: a false alarm).
	Pass Verdict = iota
	// Flagged: some check is out of tolerance, and the set says so
	// (Set.Diag.Flagged()).
	Flagged
	// Errored: Run returned an error.
	Errored
	// Fail: a silently wrong answer: a check out of tolerance on an
	// unflagged set, particles outside the support (flagged or not), or an
	// empty or non-finite set without an error.
	Fail
)

// String returns "pass", "flagged", "error" or "FAIL".
func (v Verdict) String() string {
	switch v {
	case Pass:
		return "pass"
	case Flagged:
		return "flagged"
	case Errored:
		return "error"
	}
	return "FAIL"
}

// CheckResult is a Check measured on a set.
type CheckResult struct {
	Check
	// Estimate is the set's Σᵢ wᵢ F(xᵢ) / Σᵢ wᵢ.
	Estimate float64
	// Tol is the tolerance on |Estimate − Exact| (see Known).
	Tol float64
	// OK reports |Estimate − Exact| ≤ Tol.
	OK bool
}

// KnownResult is one run of a method on a known target, judged.
type KnownResult struct {
	// Target is the known target of the run.
	Target *KnownTarget
	// Set and Err are what Run returned.
	Set particle.Set
	Err error
	// Verdict judges the run; Why says why it is not Pass ("" when it is).
	Verdict Verdict
	Why     string
	// Checks holds every check of the target (nil after an error or for
	// an empty or non-finite set).
	Checks []CheckResult
	// Outside counts the particles outside the support.
	Outside int
	// Kish is the set's Kish ESS (Σwᵢ)²/Σwᵢ².
	Kish float64
	// ESS is the effective sample size of the tolerances (at least
	// MinESS) and Z their
	// normal quantile.
	ESS, Z float64
	// Steps and GradEvals are those of the last snapshot the run reported
	// (0 when it reported none); Seconds is the wall time of Run.
	Steps     int
	GradEvals int64
	Seconds   float64
}

// The allowances for bias in the tolerances of Known, beyond the Monte
// Carlo error: a tenth of a standard deviation on a mean, a fifth of the
// variance on a variance (a tenth of the standard deviation), 0.1 on a
// correlation and 0.03 on a probability.
const (
	AllowMean = 0.1
	AllowVar  = 0.2
	AllowCorr = 0.1
	AllowProb = 0.03
)

// Alpha is the chance that exact independent draws fail one target's
// checks, split over its K checks by Bonferroni's bound.
const Alpha = 0.01

// MinESS is the fewest effective draws whose precision a set is held to:
// the ESS of the tolerances is at least MinESS whatever the set claims, so
// that a set whose weights sit on a few particles (a Kish ESS of 4, with
// which any mode weight would be within z·√(p(1−p)/4) of the truth) is
// still asked for the precision of 50 independent draws: a zero-settings
// run of a hundred particles should be worth at least half as many.
const MinESS = 50

// DiagESSNames are the names of Diagnostics values that Known reads as a
// method's own effective sample size (the smallest present, if below the
// set's Kish ESS, is used).
var DiagESSNames = []string{"ess", "ess_bulk_min", "ess_tail_min"}

// Known runs the method's zero settings, started at each known target's X0
// (particle.Start{X0: k.X0}),
// on the targets of opts, each in a subtest named after the target with a
// fixed source, and fails the subtest on a silently wrong answer:
//
//   - a check out of tolerance on a set that is not flagged
//     (Set.Diag.Flagged());
//   - a particle outside the target's support, flagged or not;
//   - an error on a target without ErrorOK (every smooth target of ℝᵈ:
//     zero settings must run there);
//   - an empty or non-finite set returned without an error.
//
// A flagged set out of tolerance passes: it said it is not to be read. So
// does an error on a target with ErrorOK (gamma, funnel).
//
// Each check is the weighted mean of F over the set, Ê = Σᵢ wᵢ F(xᵢ)/Σᵢ wᵢ,
// against the exact E_p F, with the tolerance
//
//	|Ê − E_p F| ≤ z·SD/√ESS + b,
//
// the Monte Carlo error of ESS independent draws plus an allowance b for
// bias:
//
//   - SD² = Var_p F: σⱼ² for a mean, μ₄ⱼ − σⱼ⁴ for a variance (the second
//     moment about the exact mean, so that an offset mean counts too),
//     1 + ρ² for a Gaussian correlation, p(1 − p) for a probability, 2d
//     for a Gaussian's squared Mahalanobis distance (CheckSpread);
//   - ESS is the Kish ESS (Σwᵢ)²/Σwᵢ² of the set, or the method's own ESS
//     when it reports a smaller one in Set.Diag.Values (DiagESSNames), and
//     at least MinESS: Var(Σ wᵢ F(xᵢ)/Σwᵢ) = Var_p F / ESS for independent
//     draws;
//   - z = Φ⁻¹(1 − Alpha/(2K)) for the K checks of the target (3.29 for
//     K = 10, 3.99 for gauss50's 150), so that exact independent draws fail
//     a target with probability at most Alpha by Bonferroni's bound (for
//     the variances of the Student t, whose estimates have a heavy right
//     tail, the normal approximation understates the error: 100 exact
//     draws fail student5 for about 2% of seeds);
//   - b is AllowMean·σⱼ, AllowVar·σⱼ² (AllowVar·d for the spread),
//     AllowCorr or AllowProb. It admits the bias of a finite run and the
//     autocorrelation of draws that the Kish ESS ignores, and is the error
//     a user reading a posterior summary can live with.
//
// Known logs each run's table row (WriteKnownTable).
func Known(t *testing.T, m Method, opts KnownOptions) {
	t.Helper()
	targets := KnownTargets()
	if opts.Targets != nil {
		targets = targets[:0]
		for _, name := range opts.Targets {
			k := KnownTargetByName(name)
			if k == nil {
				t.Fatalf("samplertest: no known target %q", name)
			}
			targets = append(targets, k)
		}
	}
	for _, k := range targets {
		t.Run(k.Name, func(t *testing.T) {
			r := RunKnown(context.Background(), m, k, opts.Seed)
			var b strings.Builder
			WriteKnownTable(&b, []KnownRow{{Method: strings.TrimSuffix(t.Name(), "/"+k.Name), Result: r}})
			t.Log("\n" + b.String())
			switch {
			case r.Verdict == Fail:
				t.Errorf("%s: silently wrong: %s", k.Name, r.Why)
			case r.Verdict == Errored && !k.ErrorOK:
				t.Errorf("%s: %v", k.Name, r.Err)
			}
		})
	}
}

// RunKnown runs m.Zero from k.X0 on k with the source rand.NewPCG(h, seed), h a
// hash of k.Name, and judges the result as Known does.
func RunKnown(ctx context.Context, m Method, k *KnownTarget, seed uint64) KnownResult {
	h := fnv.New64a()
	h.Write([]byte(k.Name))
	r := KnownResult{Target: k}
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		r.Steps, r.GradEvals = s.Step, s.GradEvals
		return nil
	})
	start := time.Now()
	r.Set, r.Err = m.Zero.Run(ctx, k, from(k.X0), rand.NewPCG(h.Sum64(), seed), rec)
	r.Seconds = time.Since(start).Seconds()
	judge(&r)
	return r
}

// judge fills the verdict, the checks and the counts of r from its set.
func judge(r *KnownResult) {
	k, s := r.Target, r.Set
	if r.Err != nil {
		r.Verdict, r.Why = Errored, r.Err.Error()
		return
	}
	n := s.Len()
	if n == 0 || len(s.W) != n {
		r.Verdict, r.Why = Fail, fmt.Sprintf("%d particles with %d weights", n, len(s.W))
		return
	}
	if _, d := s.X.Dims(); d != k.d {
		r.Verdict, r.Why = Fail, fmt.Sprintf("particles of dimension %d, want %d", d, k.d)
		return
	}
	var sw float64
	for i := range n {
		if err := particle.CheckFinite("set", i, s.X.RawRowView(i)); err != nil {
			r.Verdict, r.Why = Fail, err.Error()
			return
		}
		if k.In != nil && !k.In(s.X.RawRowView(i)) {
			r.Outside++
		}
		sw += s.W[i]
	}
	if !(sw > 0) || math.IsInf(sw, 0) {
		r.Verdict, r.Why = Fail, fmt.Sprintf("weights sum to %v", sw)
		return
	}
	r.Kish = s.ESS()
	r.ESS = r.Kish
	for _, name := range DiagESSNames {
		if v, ok := s.Diag.Values[name]; ok && v < r.ESS {
			r.ESS = v
		}
	}
	r.ESS = max(r.ESS, MinESS)
	r.Z = distuv.UnitNormal.Quantile(1 - Alpha/(2*float64(len(k.Checks))))
	r.Checks = make([]CheckResult, len(k.Checks))
	worst, bad := -1, 0
	for c, ch := range k.Checks {
		var e float64
		for i := range n {
			e += s.W[i] * ch.F(s.X.RawRowView(i))
		}
		e /= sw
		tol := r.Z*ch.SD/math.Sqrt(r.ESS) + allowance(ch)
		ok := math.Abs(e-ch.Exact) <= tol
		r.Checks[c] = CheckResult{Check: ch, Estimate: e, Tol: tol, OK: ok}
		if !ok {
			bad++
			if worst < 0 || math.Abs(e-ch.Exact)/tol > math.Abs(r.Checks[worst].Estimate-r.Checks[worst].Exact)/r.Checks[worst].Tol {
				worst = c
			}
		}
	}
	var why []string
	if r.Outside > 0 {
		why = append(why, fmt.Sprintf("%d of %d particles outside the support", r.Outside, n))
	}
	if worst >= 0 {
		c := r.Checks[worst]
		why = append(why, fmt.Sprintf("%d of %d checks out of tolerance, worst %s = %.4g, exact %.4g ± %.3g",
			bad, len(r.Checks), c.Name, c.Estimate, c.Exact, c.Tol))
	}
	switch {
	case r.Outside > 0:
		r.Verdict = Fail
	case worst < 0:
		r.Verdict = Pass
	case s.Diag.Flagged():
		r.Verdict = Flagged
	default:
		r.Verdict = Fail
	}
	r.Why = strings.Join(why, "; ")
}

// allowance returns the bias allowance b of a check.
func allowance(c Check) float64 {
	switch c.Kind {
	case CheckMean:
		return AllowMean * c.SD
	case CheckVar:
		return AllowVar * c.Exact
	case CheckCorr:
		return AllowCorr
	case CheckProb:
		return AllowProb
	case CheckSpread:
		return AllowVar * c.Exact
	}
	panic("samplertest: unknown check kind")
}

// errorLine returns err's message on one line.
func errorLine(err error) string {
	if err == nil {
		return ""
	}
	var fe *particle.FlaggedError
	if errors.As(err, &fe) {
		return "flagged: " + fe.Diagnostics.Reason()
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
