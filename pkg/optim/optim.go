package optim

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// Rule is the update rule of Train.
type Rule int

// Update rules.
const (
	// Adam is the default.
	Adam Rule = iota
	// AdaGrad accumulates squared gradients without forgetting.
	AdaGrad
)

// Settings configure Train. The zero value is 2,000 Adam steps of size
// 0.01 on batches of 100 without validation.
type Settings struct {
	// Rule selects Adam (default) or AdaGrad.
	Rule Rule
	// Steps is the largest number of steps. Default 2000.
	Steps int
	// Batch is the minibatch size; it is capped at NData (a full batch).
	// Default 100.
	Batch int
	// Step is the step size η. Default 0.01 for Adam, 0.1 for AdaGrad.
	Step float64
	// Beta1 and Beta2 are Adam's decay rates. Defaults 0.9 and 0.999.
	Beta1, Beta2 float64
	// ScaleDecay is the decay rate of the average of squared scores behind
	// Result.Scale, kept apart from Adam's so that the large scores of the
	// first steps are forgotten: with the default 0.995 the average spans
	// about 200 steps (relative sd of a scale about 5 % from the noise).
	ScaleDecay float64
	// Eps keeps the denominators positive. Default 1e-8.
	Eps float64
	// Validate, when set, scores a point (larger is better, e.g. minus a
	// validation RMSE); it must not keep x. It is called every EvalEvery
	// steps and after the last; Train returns the best-scoring point.
	Validate func(x []float64) float64
	// EvalEvery is the number of steps between validations. Default 100.
	EvalEvery int
	// Patience stops training after this many validations in a row
	// without improvement. Default 5.
	Patience int
}

// Result is the outcome of Train.
type Result struct {
	// X is the returned point: the last one, or with Settings.Validate the
	// best-scoring one.
	X []float64
	// Scale is the per-coordinate scale at X, √(N/(|B| v̄ⱼ)) (see the
	// package documentation); +Inf where v̄ⱼ = 0.
	Scale []float64
	// SecondMoment is v̄ at X, the bias-corrected ScaleDecay average of
	// squared minibatch scores.
	SecondMoment []float64
	// Steps is the number of steps taken, BestStep the step of X.
	Steps, BestStep int
	// Score is the validation score of X (NaN without Validate) and
	// Validations the number of Validate calls.
	Score       float64
	Validations int
	// GradEvals counts the per-datapoint gradient evaluations: |B| per step.
	GradEvals int64
}

// Train runs a minibatch Adam or AdaGrad ascent of log p from x0 (not
// modified) and returns the point and its scales. src draws the batches.
// Only a cancelled ctx or a non-finite score is an error; the result then
// holds the best point so far and the evaluations spent.
func Train(ctx context.Context, t target.Stochastic, x0 []float64, s Settings, src rand.Source) (Result, error) {
	d := t.Dim()
	if len(x0) != d {
		panic("optim: starting point length differs from the target dimension")
	}
	if src == nil {
		panic("optim: Train needs a random source")
	}
	rng := rand.New(src)
	n := t.NData()
	if n <= 0 {
		panic("optim: target has no data")
	}
	if s.Steps <= 0 {
		s.Steps = 2000
	}
	if s.Batch <= 0 {
		s.Batch = 100
	}
	s.Batch = min(s.Batch, n)
	if s.Step <= 0 {
		s.Step = 0.01
		if s.Rule == AdaGrad {
			s.Step = 0.1
		}
	}
	if s.Beta1 <= 0 || s.Beta1 >= 1 {
		s.Beta1 = 0.9
	}
	if s.Beta2 <= 0 || s.Beta2 >= 1 {
		s.Beta2 = 0.999
	}
	if s.ScaleDecay <= 0 || s.ScaleDecay >= 1 {
		s.ScaleDecay = 0.995
	}
	if s.Eps <= 0 {
		s.Eps = 1e-8
	}
	if s.EvalEvery <= 0 {
		s.EvalEvery = 100
	}
	if s.Patience <= 0 {
		s.Patience = 5
	}

	x := append([]float64(nil), x0...)
	g := make([]float64, d)
	m := make([]float64, d)   // Adam's first moment
	acc := make([]float64, d) // Adam's v or AdaGrad's G
	v := make([]float64, d)   // the ScaleDecay average of g², for the scales
	perm := rng.Perm(n)
	pos := 0
	batch := make([]int, s.Batch)

	res := Result{Score: math.NaN(), BestStep: 0}
	best := append([]float64(nil), x...)
	bestV := make([]float64, d)
	bestScore := math.Inf(-1)
	sinceBest := 0
	b1t, b2t := 1.0, 1.0 // β₁ᵗ, β₂ᵗ

	validate := func(step int) bool { // reports whether to stop
		sc := s.Validate(x)
		res.Validations++
		if sc > bestScore || res.Validations == 1 {
			bestScore = sc
			copy(best, x)
			copy(bestV, v)
			res.BestStep = step
			sinceBest = 0
			return false
		}
		sinceBest++
		return sinceBest >= s.Patience
	}
	if s.Validate != nil {
		validate(0) // the starting point is a candidate too
	}

	var err error
	step := 0
	for step < s.Steps {
		if step%64 == 0 {
			if err = ctx.Err(); err != nil {
				break
			}
		}
		for i := range batch {
			if pos == n {
				rng.Shuffle(n, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
				pos = 0
			}
			batch[i] = perm[pos]
			pos++
		}
		lp := t.MinibatchLogProbGrad(x, g, batch)
		res.GradEvals += int64(s.Batch)
		step++
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			err = errors.New("optim: the minibatch log density is not finite")
			break
		}
		b1t *= s.Beta1
		b2t *= s.Beta2
		for j, gj := range g {
			v[j] = s.ScaleDecay*v[j] + (1-s.ScaleDecay)*gj*gj
			switch s.Rule {
			case AdaGrad:
				acc[j] += gj * gj
				x[j] += s.Step * gj / (math.Sqrt(acc[j]) + s.Eps)
			default:
				m[j] = s.Beta1*m[j] + (1-s.Beta1)*gj
				acc[j] = s.Beta2*acc[j] + (1-s.Beta2)*gj*gj
				mh := m[j] / (1 - b1t)
				vh := acc[j] / (1 - b2t)
				x[j] += s.Step * mh / (math.Sqrt(vh) + s.Eps)
			}
		}
		if s.Validate != nil && (step%s.EvalEvery == 0 || step == s.Steps) {
			if validate(step) {
				break
			}
		}
	}
	res.Steps = step
	if s.Validate == nil {
		copy(best, x)
		copy(bestV, v)
		res.BestStep = step
	} else {
		res.Score = bestScore
	}
	// Bias correction of the scale average at the returned point's step.
	corr := 1 - math.Pow(s.ScaleDecay, float64(res.BestStep))
	res.X = best
	res.SecondMoment = bestV
	res.Scale = make([]float64, d)
	for j := range bestV {
		if corr > 0 {
			bestV[j] /= corr
		}
		res.Scale[j] = math.Sqrt(float64(n) / (float64(s.Batch) * bestV[j]))
	}
	return res, err
}
