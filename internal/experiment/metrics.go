package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/harness"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Metric names. They are the CSV column names of every result and the names
// the report reads: keep them stable.
const (
	// Accuracy is the test accuracy of the weighted predictive (logistic).
	Accuracy = "accuracy"
	// TestLL is the mean test log-likelihood of the weighted predictive:
	// logistic, or the BNN on the original scale of y.
	TestLL = "test_ll"
	// RMSE is the BNN's test RMSE of the weighted mean prediction, on the
	// original scale of y.
	RMSE = "rmse"
	// MMD2 is the squared MMD to the experiment's reference draws under one
	// RBF kernel per dataset split (bandwidth by the median heuristic of the
	// reference draws); on a Gaussian target it is MMD2Exact.
	MMD2 = "mmd2"
	// MMD2Exact is the exact squared MMD to a Gaussian target under the RBF
	// kernel of the dataset's fixed bandwidth (closed-form embedding).
	MMD2Exact = "mmd2_exact"
	// FMMD2 is the squared MMD in function space: between the BNN's
	// standardised outputs at the first FunctionInputs evaluation rows
	// under the method's weighted particles and under the reference draws,
	// RBF kernel with the median bandwidth of the reference's outputs.
	FMMD2 = "fmmd2"
	// KSD2 is the weighted kernel Stein discrepancy with the IMQ kernel
	// (c = 1, β = −1/2), from full-data scores.
	KSD2 = "ksd2"
	// DevAccuracy, DevTestLL and DevRMSE are Accuracy, TestLL and RMSE on
	// the development rows of eval.rows = "development+test" (the last
	// round(0.1·n) training rows, at most 500, which the method does not
	// see), computed at the same snapshots as the test metrics: the report
	// selects a snapshot by them and reports its test metrics.
	DevAccuracy = "dev_accuracy"
	DevTestLL   = "dev_test_ll"
	DevRMSE     = "dev_rmse"
)

// unscaled returns y mapped by unscale (nil for nil).
func unscaled(y []float64, unscale func(float64) float64) []float64 {
	if y == nil {
		return nil
	}
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = unscale(v)
	}
	return out
}

// predictDev is predict on the development rows (labels for the logistic
// model, responses on the original scale for the BNN, both in YDev).
func (d *Data) predictDev(s particle.Snapshot) (float64, float64) {
	return d.predictRows(s, d.XDev, d.YDev, d.YDev, &d.devCache)
}

// devMetric is the factory of a dev_ metric: which of predictDev's two
// values (0 or 1) it returns, and whether it needs the BNN (rmse) or the
// logistic model (accuracy); test_ll needs either.
func devMetric(name string, which int, bnn, logistic bool) harness.MetricFactory {
	return func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		d, err := dataOf(p)
		if err != nil {
			return nil, err
		}
		if d.XDev == nil {
			return nil, fmt.Errorf("%s needs eval.rows = %q (development rows beside the test rows)", name, harness.RowsDevelopmentTest)
		}
		if (bnn && d.BNN == nil) || (logistic && d.Logistic == nil) || (d.BNN == nil && d.Logistic == nil) {
			return nil, fmt.Errorf("%s is not defined on %s", name, d.Name)
		}
		return func(s particle.Snapshot) float64 {
			a, b := d.predictDev(s)
			if which == 0 {
				return a
			}
			return b
		}, nil
	}
}

// predKey identifies one snapshot, so that accuracy and test_ll (or rmse and
// test_ll) of the same snapshot share one pass over the test set.
type predKey struct {
	x     *mat.Dense
	step  int
	grads int64
	secs  float64
}

type predCache struct {
	key  predKey
	a, b float64
	ok   bool
}

// predict returns the two predictive metrics of the snapshot: (accuracy,
// test_ll) for logistic regression, (rmse, test_ll) for the BNN.
func (d *Data) predict(s particle.Snapshot) (float64, float64) {
	return d.predictRows(s, d.XTest, d.LabelsTest, d.YTestOrig, &d.cache)
}

// predictRows evaluates the snapshot's two predictive metrics on the rows x
// (labels for the logistic model, responses on the original scale for the
// BNN), remembering the last snapshot's values in cache.
func (d *Data) predictRows(s particle.Snapshot, x *mat.Dense, labels, y []float64, cache *predCache) (float64, float64) {
	k := predKey{s.X, s.Step, s.GradEvals, s.Seconds}
	d.mu.Lock()
	defer d.mu.Unlock()
	if cache.ok && cache.key == k {
		return cache.a, cache.b
	}
	var a, b float64
	switch {
	case d.Logistic != nil:
		a, b = d.Logistic.Metrics(x, labels, s.X, s.W)
	case d.BNN != nil:
		a, b = d.BNN.Metrics(x, y, s.X, s.W, d.YMean, d.YSD)
	default:
		return math.NaN(), math.NaN()
	}
	*cache = predCache{key: k, a: a, b: b, ok: true}
	return a, b
}

var errNoPredictive = errors.New("the dataset has no test set (use mmd2_exact or ksd2)")

func registerMetrics(r *harness.Registry) {
	r.RegisterMetric(Accuracy, func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		d, err := dataOf(p)
		if err != nil {
			return nil, err
		}
		if d.Logistic == nil {
			return nil, fmt.Errorf("accuracy needs a classification dataset, not %s", d.Name)
		}
		return func(s particle.Snapshot) float64 { a, _ := d.predict(s); return a }, nil
	})
	r.RegisterMetric(TestLL, func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		d, err := dataOf(p)
		if err != nil {
			return nil, err
		}
		if d.Logistic == nil && d.BNN == nil {
			return nil, errNoPredictive
		}
		return func(s particle.Snapshot) float64 { _, ll := d.predict(s); return ll }, nil
	})
	r.RegisterMetric(RMSE, func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		d, err := dataOf(p)
		if err != nil {
			return nil, err
		}
		if d.BNN == nil {
			return nil, fmt.Errorf("rmse needs a regression dataset, not %s", d.Name)
		}
		return func(s particle.Snapshot) float64 { a, _ := d.predict(s); return a }, nil
	})
	r.RegisterMetric(DevAccuracy, devMetric(DevAccuracy, 0, false, true))
	r.RegisterMetric(DevTestLL, devMetric(DevTestLL, 1, false, false))
	r.RegisterMetric(DevRMSE, devMetric(DevRMSE, 0, true, false))
	// mmd2 version 2: the bandwidth's subsample of reference draws spans
	// every chain (version 1 took every 4th pooled row, one chain of four).
	r.RegisterVersionedMetric(MMD2, "2", mmd2Factory)
	r.RegisterVersionedMetric(FMMD2, "1", fmmd2Factory)
	r.RegisterMetric(MMD2Exact, func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		d, err := dataOf(p)
		if err != nil {
			return nil, err
		}
		if d.Gauss == nil {
			return nil, fmt.Errorf("mmd2_exact needs a Gaussian target, not %s", d.Name)
		}
		emb := d.Gauss.RBFEmbedding(d.EvalH)
		return func(s particle.Snapshot) float64 { return emb.MMD2(s.X, s.W) }, nil
	})
	r.RegisterMetric(KSD2, func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		t := p.Target
		return func(s particle.Snapshot) float64 {
			n, dim := s.X.Dims()
			S := mat.NewDense(n, dim, nil)
			scores(t, s.X, S)
			return metric.KSD2(nil, s.X, S, s.W)
		}, nil
	})
}

// scores writes the full-data score of every row of X into S.
func scores(t target.Target, X, S *mat.Dense) {
	if b, ok := t.(target.Batched); ok {
		n, _ := X.Dims()
		b.LogProbGradBatch(X, S, make([]float64, n))
		return
	}
	n, _ := X.Dims()
	for i := 0; i < n; i++ {
		t.LogProbGrad(X.RawRowView(i), S.RawRowView(i))
	}
}

// mmd2Factory prepares, once per cell, the MMD² against the experiment's
// reference draws (on a Gaussian target: the exact MMD², as mmd2_exact). The
// RBF bandwidth is the median heuristic of the reference draws themselves
// (at most 1000 rows spread over every chain), so it depends only on the
// dataset split and the reference: every method of an experiment is
// measured with the same kernel. The reference's diagnostics and its
// within-reference floor are kept for the cell's provenance summary.
func mmd2Factory(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
	d, err := dataOf(p)
	if err != nil {
		return nil, err
	}
	if d.Gauss != nil {
		// An exact target is its own reference: MMD² in closed form.
		emb := d.Gauss.RBFEmbedding(d.EvalH)
		d.setRef(&RefInfo{Kind: "exact", Bandwidth: d.EvalH})
		return func(s particle.Snapshot) float64 { return emb.MMD2(s.X, s.W) }, nil
	}
	set, base, chains, err := loadReference(ctx, env)
	if err != nil {
		return nil, err
	}
	// The reference is decoded afresh for each caller: the metric may keep
	// its matrix without a copy.
	Y := set.X
	h := chainBandwidth(Y, chains)
	k := kernel.RBF{H: h}
	floor := referenceFloor(k, Y, chains)
	d.updateRef(base, func(r *RefInfo) {
		r.Bandwidth = h
		setFloor(r, MMD2, floor)
	})
	m := metric.NewMMD(k, Y)
	return func(s particle.Snapshot) float64 { return m.MMD2(s.X, s.W) }, nil
}

// setFloor records a finite floor of metric name in r.
func setFloor(r *RefInfo, name string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	if r.Floors == nil {
		r.Floors = map[string]float64{}
	}
	r.Floors[name] = v
}

// loadReference returns the experiment's reference draws, the description
// of them every cell's summary carries (kind, draws, chains, the sampler's
// diagnostics) and their chain count.
func loadReference(ctx context.Context, env *harness.Env) (particle.Set, RefInfo, int, error) {
	set, summary, err := env.Reference(ctx)
	if err != nil {
		return particle.Set{}, RefInfo{}, 0, fmt.Errorf("reference: %w", err)
	}
	chains := refChains(summary, set.Len())
	info := RefInfo{Draws: set.Len(), Chains: chains}
	if ref := env.Cell.Experiment.Reference; ref != nil {
		info.Kind = ref.Kind
	}
	if len(summary) > 0 {
		var v any
		if json.Unmarshal(summary, &v) == nil {
			info.Diagnostics = v
		}
	}
	return set, info, chains, nil
}

// FunctionInputs is the number of test inputs (the first rows of the
// evaluation rows) at which fmmd2 compares the BNN's outputs.
const FunctionInputs = 100

// fmmd2Factory prepares, once per cell, the MMD² in function space: each
// particle θ (the method's, with its weights, and the reference's, equally
// weighted) is mapped to its vector of standardised outputs
// (f_θ(x₁), …, f_θ(x_T)) at the first T = min(FunctionInputs, rows) test
// inputs, and the squared MMD between the two weighted sets of vectors is
// taken under an RBF kernel whose bandwidth is the median heuristic of the
// reference's vectors. A network's outputs do not change when its hidden
// units are permuted, so neither does fmmd2, unlike mmd2 in parameter
// space. The reference's split-R̂ and bulk ESS on the outputs, per input,
// and the within-reference floor go into the cell's summary.
func fmmd2Factory(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
	d, err := dataOf(p)
	if err != nil {
		return nil, err
	}
	if d.BNN == nil || d.XTest == nil {
		return nil, fmt.Errorf("%s needs a regression dataset (a BNN with evaluation rows), not %s", FMMD2, d.Name)
	}
	nt, dim := d.XTest.Dims()
	if nt == 0 {
		return nil, fmt.Errorf("%s: %s has no evaluation rows", FMMD2, d.Name)
	}
	X := d.XTest.Slice(0, min(FunctionInputs, nt), 0, dim).(*mat.Dense)
	set, base, chains, err := loadReference(ctx, env)
	if err != nil {
		return nil, err
	}
	fm := newFunctionMMD(d.BNN, X, set.X, chains)
	d.updateRef(base, func(r *RefInfo) {
		diag := fm.diag
		r.Predictions = &diag
		setFloor(r, FMMD2, fm.floor)
	})
	return func(s particle.Snapshot) float64 { return fm.MMD2(s.X, s.W) }, nil
}

// functionMMD is the MMD² in function space against one reference: the
// reference's output vectors at the inputs x with their kernel, floor and
// convergence diagnostics.
type functionMMD struct {
	bnn   *model.BNN
	x     *mat.Dense
	m     *metric.MMD
	h     float64
	floor float64
	diag  PredictionDiag
}

// newFunctionMMD maps the reference draws refX (iteration-major over
// chains) to their outputs at the inputs x and prepares the kernel (median
// bandwidth over every chain), the floor and the diagnostics.
func newFunctionMMD(bnn *model.BNN, x, refX *mat.Dense, chains int) *functionMMD {
	F := bnn.Outputs(nil, x, refX)
	h := chainBandwidth(F, chains)
	k := kernel.RBF{H: h}
	f := &functionMMD{bnn: bnn, x: x, m: metric.NewMMD(k, F), h: h, floor: referenceFloor(k, F, chains), diag: predictionDiag(F, chains)}
	f.diag.Bandwidth = h
	return f
}

// MMD2 returns the MMD² between the outputs of the particles P under the
// weights w (nil: equal) and the reference's.
func (f *functionMMD) MMD2(P *mat.Dense, w []float64) float64 {
	return f.m.MMD2(f.bnn.Outputs(nil, f.x, P), w)
}
