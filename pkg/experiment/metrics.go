package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
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

// predictive is the factory of a predictive metric: the value name of the
// model's check on the evaluation rows (dev false) or the development rows
// (dev true); needs says what a model lacking it needs ("" for an error
// naming the dataset).
func predictive(name string, dev bool, needs string) harness.MetricFactory {
	base := strings.TrimPrefix(name, "dev_")
	return func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		m, err := modelOf(p)
		if err != nil {
			return nil, err
		}
		pr := m.Predictive(dev)
		i := pr.Index(base)
		switch {
		case i >= 0:
		case dev && pr == nil:
			return nil, fmt.Errorf("%s needs eval.rows = %q (development rows beside the test rows)", name, harness.RowsDevelopmentTest)
		case needs != "":
			return nil, fmt.Errorf("%s needs %s, not %s", name, needs, m.About().Name)
		case pr == nil && !dev:
			return nil, errNoPredictive
		default:
			return nil, fmt.Errorf("%s is not defined on %s", name, m.About().Name)
		}
		return func(s particle.Snapshot) float64 {
			a, b := pr.Eval(s)
			if i == 0 {
				return a
			}
			return b
		}, nil
	}
}

var errNoPredictive = errors.New("the dataset has no test set (use mmd2_exact or ksd2)")

// registerMetrics registers every metric with what it means: the report
// labels, ranks and draws a metric by its meaning, never by its name.
func registerMetrics(r *harness.Registry) {
	higher := func(label, reads string) harness.MetricMeaning {
		return harness.MetricMeaning{Label: label, Better: harness.HigherBetter, Reads: reads}
	}
	lower := func(label, reads string, log bool) harness.MetricMeaning {
		return harness.MetricMeaning{Label: label, Better: harness.LowerBetter, Log: log, Reads: reads}
	}
	fraction := func(label, reads string) harness.MetricMeaning {
		m := higher(label, reads)
		m.Fraction = true
		return m
	}
	const eval, dev = harness.ReadsEvaluation, harness.ReadsDevelopment
	mmd2 := lower("MMD² to the HMC reference", harness.ReadsReference, true)
	mmd2.LabelExact = "exact MMD² to the target"
	for _, m := range []struct {
		name    string
		version string
		f       harness.MetricFactory
		means   harness.MetricMeaning
	}{
		{Accuracy, "", predictive(Accuracy, false, "a classification dataset"), fraction("{rows} accuracy", eval)},
		{TestLL, "", predictive(TestLL, false, ""), higher("mean {rows} log-likelihood (nats)", eval)},
		{RMSE, "", predictive(RMSE, false, "a regression dataset"), lower("{rows} RMSE (units of y)", eval, false)},
		{DevAccuracy, "", predictive(DevAccuracy, true, ""), fraction("development accuracy", dev)},
		{DevTestLL, "", predictive(DevTestLL, true, ""), higher("mean development log-likelihood (nats)", dev)},
		{DevRMSE, "", predictive(DevRMSE, true, ""), lower("development RMSE (units of y)", dev, false)},
		// mmd2 version 2: the bandwidth's subsample of reference draws
		// spans every chain (version 1 took every 4th pooled row, one
		// chain of four).
		{MMD2, "2", mmd2Factory, mmd2},
		{FMMD2, "1", fmmd2Factory, lower("MMD² of predictions to the HMC reference", harness.ReadsReference, true)},
		{MMD2Exact, "", mmd2ExactFactory, lower("exact MMD² to the target", harness.ReadsTarget, true)},
		{KSD2, "", ksd2Factory, lower("KSD² (IMQ kernel, full-data scores)", harness.ReadsTarget, true)},
	} {
		r.RegisterVersionedMetric(m.name, m.version, m.f)
		r.DescribeMetric(m.name, m.means)
	}
	// The statistics MMD-FW reports about its own snapshots
	// (particle.Snapshot.Stats). The pool's estimate may be negative:
	// it is drawn on a linear axis.
	r.DescribeMetric(harness.StatPrefix+mmdfw.StatMMD2Kernel,
		lower("own-kernel MMD² (exact embedding)", harness.ReadsMethod, true))
	r.DescribeMetric(harness.StatPrefix+mmdfw.StatMMD2KernelPool,
		lower("own-kernel MMD² (pool estimate)", harness.ReadsMethod, false))
}

// mmd2ExactFactory prepares the exact MMD² to a Gaussian target under the
// RBF kernel of the dataset's fixed bandwidth.
func mmd2ExactFactory(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
	m, err := modelOf(p)
	if err != nil {
		return nil, err
	}
	g, h := m.Exact()
	if g == nil {
		return nil, fmt.Errorf("mmd2_exact needs a Gaussian target, not %s", m.About().Name)
	}
	emb := g.RBFEmbedding(h)
	return func(s particle.Snapshot) float64 { return emb.MMD2(s.X, s.W) }, nil
}

// ksd2Factory prepares the weighted KSD² with the IMQ kernel from
// full-data scores.
func ksd2Factory(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
	t := p.Target
	return func(s particle.Snapshot) float64 {
		n, dim := s.X.Dims()
		S := mat.NewDense(n, dim, nil)
		scores(t, s.X, S)
		return metric.KSD2(nil, s.X, S, s.W)
	}, nil
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
// reference draws (on a Gaussian target: the exact MMD², as mmd2_exact),
// under the kernel of mmd2Kernel. It changes nothing in the problem: the
// method's summary asks cellReference for the same reference itself.
func mmd2Factory(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
	m, err := modelOf(p)
	if err != nil {
		return nil, err
	}
	r, err := cellRefOf(ctx, env, m)
	if err != nil {
		return nil, err
	}
	if r.Gauss != nil {
		emb := r.Gauss.RBFEmbedding(r.H)
		return func(s particle.Snapshot) float64 { return emb.MMD2(s.X, s.W) }, nil
	}
	k, err := mmd2Kernel(ctx, env, m)
	if err != nil {
		return nil, err
	}
	return func(s particle.Snapshot) float64 { return k.mmd.MMD2(s.X, s.W) }, nil
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
// and the within-reference floor go into the cell's summary (through
// cellReference, which asks fmmd2Of for them).
func fmmd2Factory(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
	m, err := modelOf(p)
	if err != nil {
		return nil, err
	}
	fm, err := fmmd2Of(ctx, env, m)
	if err != nil {
		return nil, err
	}
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
