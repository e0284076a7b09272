package experiment

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// Closed-form baseline kinds of the regression sets: floors that every
// Bayesian neural network result must clear.
const (
	// KindOLS is ordinary least squares with an intercept on the
	// standardised training rows.
	KindOLS = "ols"
	// KindConstant predicts the training mean of y.
	KindConstant = "constant"
)

// BaselineConfig is the settings table of the ols and constant kinds; they
// have no settings.
type BaselineConfig struct{}

// Validate accepts the empty table.
func (BaselineConfig) Validate() error { return nil }

// rcondOLS is the relative singular-value cutoff of the least-squares
// solve: directions below it (constant columns, exact collinearity) get a
// zero coefficient, the minimum-norm solution.
const rcondOLS = 1e-10

// olsFit returns the least-squares coefficients [β₀, β] of y on [1, X],
// the minimum-norm solution when [1, X] is rank deficient, and the rank of
// [1, X].
func olsFit(X *mat.Dense, y []float64) ([]float64, int, error) {
	n, p := X.Dims()
	A := mat.NewDense(n, p+1, nil)
	for i := 0; i < n; i++ {
		r := A.RawRowView(i)
		r[0] = 1
		copy(r[1:], X.RawRowView(i))
	}
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return nil, 0, fmt.Errorf("ols: SVD of the %d×%d design failed", n, p+1)
	}
	rank := svd.Rank(rcondOLS)
	var beta mat.Dense
	svd.SolveTo(&beta, mat.NewDense(n, 1, append([]float64(nil), y...)), rank)
	return mat.Col(nil, 0, &beta), rank, nil
}

// linearParticle writes into dst (length H(p+2)+3) the BNN parameters whose
// network computes f(x) = β₀ + βᵀx exactly, with the identity
// relu(u) − relu(−u) = u on the first two hidden units (W1 columns β and
// −β, output weights 1 and −1, all else zero), and log γ = −log σ².
func linearParticle(dst, beta []float64, p, h int, sigma2 float64) {
	clear(dst)
	for j := 0; j < p; j++ {
		dst[j*h] = beta[1+j]
		dst[j*h+1] = -beta[1+j]
	}
	dst[p*h+h] = 1
	dst[p*h+h+1] = -1
	dst[p*h+2*h] = beta[0]
	dst[len(dst)-2] = -math.Log(sigma2)
}

// runBaseline fits the closed-form predictor of kind on the cell's
// standardised training rows and reports it as one BNN particle, so that
// the experiment's rmse and test_ll metrics evaluate it as any method:
//
//	ols:      ŷ = β₀ + βᵀx,  σ² = RSS/(N − r), r = rank [1, X];
//	constant: ŷ = ȳ,         σ² = Σ(yᵢ − ȳ)²/(N − 1),
//
// with the predictive N(ŷ, σ²) on the standardised scale. Its cost is the
// measured seconds of the fit; it evaluates no gradient (GradEvals 0).
func runBaseline(kind string) func(context.Context, harness.Input[BaselineConfig]) (harness.Output, error) {
	return func(ctx context.Context, in harness.Input[BaselineConfig]) (harness.Output, error) {
		md, err := modelOf(in.Problem)
		if err != nil {
			return harness.Output{}, err
		}
		d := md.Network()
		if d == nil || d.XTrain == nil {
			return harness.Output{}, fmt.Errorf("%s needs a regression dataset, not %s", kind, md.About().Name)
		}
		var sw particle.Stopwatch
		sw.Start()
		n, p := d.XTrain.Dims()
		h := d.BNN.Hidden()
		if h < 2 {
			return harness.Output{}, fmt.Errorf("%s: the network has %d hidden units, a linear predictor needs 2", kind, h)
		}
		beta := make([]float64, p+1)
		rank := 1
		switch kind {
		case KindOLS:
			if beta, rank, err = olsFit(d.XTrain, d.YTrain); err != nil {
				return harness.Output{}, err
			}
		case KindConstant:
			for _, v := range d.YTrain {
				beta[0] += v
			}
			beta[0] /= float64(n)
		}
		if n <= rank {
			return harness.Output{}, fmt.Errorf("%s: %d training rows leave no degree of freedom for the noise variance (rank %d)", kind, n, rank)
		}
		var rss float64
		for i := 0; i < n; i++ {
			f := beta[0]
			for j, x := range d.XTrain.RawRowView(i) {
				f += beta[1+j] * x
			}
			r := d.YTrain[i] - f
			rss += r * r
		}
		sigma2 := rss / float64(n-rank)
		if !(sigma2 > 0) {
			return harness.Output{}, fmt.Errorf("%s: the training residuals are all zero: no noise variance", kind)
		}
		X := mat.NewDense(1, d.BNN.Dim(), nil)
		linearParticle(X.RawRowView(0), beta, p, h, sigma2)
		set := particle.Set{X: X, W: []float64{1}}
		if _, err := particle.Report(in.Recorder, &sw, particle.Snapshot{Step: 0, X: set.X, W: set.W}); err != nil {
			return harness.Output{}, err
		}
		return harness.Output{Set: set, Summary: summary(ctx, in.Env, d, map[string]any{
			"rank": rank, "sigma2": sigma2, "rss": rss, "rows": n, "grad_evals": 0,
		}, nil)}, nil
	}
}
