package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/harness"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/metric"
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

func registerMetrics(r *harness.Registry) {
	r.RegisterMetric(Accuracy, predictive(Accuracy, false, "a classification dataset"))
	r.RegisterMetric(TestLL, predictive(TestLL, false, ""))
	r.RegisterMetric(RMSE, predictive(RMSE, false, "a regression dataset"))
	r.RegisterMetric(DevAccuracy, predictive(DevAccuracy, true, ""))
	r.RegisterMetric(DevTestLL, predictive(DevTestLL, true, ""))
	r.RegisterMetric(DevRMSE, predictive(DevRMSE, true, ""))
	r.RegisterMetric(MMD2, mmd2Factory)
	r.RegisterMetric(MMD2Exact, func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
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

// mmd2Factory prepares, once per cell, the MMD² against the cell's
// mmd2Reference: the experiment's reference draws under the RBF kernel of
// their median heuristic, or, on a Gaussian target, the exact MMD² (as
// mmd2_exact). It changes nothing in the problem: the method's summary
// asks mmd2Reference for the same reference itself.
func mmd2Factory(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
	m, err := modelOf(p)
	if err != nil {
		return nil, err
	}
	r, err := mmd2Reference(ctx, env, m)
	if err != nil {
		return nil, err
	}
	if r.Gauss != nil {
		emb := r.Gauss.RBFEmbedding(r.Info.Bandwidth)
		return func(s particle.Snapshot) float64 { return emb.MMD2(s.X, s.W) }, nil
	}
	mm := metric.NewMMD(kernel.RBF{H: r.Info.Bandwidth}, r.Y)
	return func(s particle.Snapshot) float64 { return mm.MMD2(s.X, s.W) }, nil
}
