package crosscheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/model"
)

// trueW are the coefficients (four features, then the bias) from which the
// synthetic labels are drawn.
var trueW = []float64{1, -0.8, 0.5, 0, 0.3}

// synthLogistic returns n rows of standard-normal features with a bias
// column of ones, and labels drawn from the logistic model at w.
func synthLogistic(rng *rand.Rand, n int, w []float64) (*mat.Dense, []float64) {
	p := len(w)
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		var z float64
		for j := 0; j < p-1; j++ {
			row[j] = rng.NormFloat64()
		}
		row[p-1] = 1
		for j, v := range row {
			z += v * w[j]
		}
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return X, y
}

// newPosterior is the logistic-regression posterior that every method of
// the cross-check samples.
func newPosterior() *model.Logistic {
	X, y := synthLogistic(rand.New(rand.NewPCG(1, 0)), 500, trueW)
	return model.NewLogistic(X, y)
}

// summary holds a method's posterior means and standard deviations with
// their standard errors.
type summary struct {
	name             string
	mean, sd         []float64
	seMean, seSD     []float64
	biasMean, biasSD float64 // allowances in units of the reference sd (mean) or relative (sd)
}

// momentsOf returns the column means and standard deviations of the rows
// of X.
func momentsOf(X *mat.Dense) (mean, sd []float64) {
	n, d := X.Dims()
	mean = make([]float64, d)
	sd = make([]float64, d)
	for j := 0; j < d; j++ {
		var s float64
		for i := 0; i < n; i++ {
			s += X.At(i, j)
		}
		m := s / float64(n)
		var ss float64
		for i := 0; i < n; i++ {
			v := X.At(i, j) - m
			ss += v * v
		}
		mean[j], sd[j] = m, math.Sqrt(ss/float64(n-1))
	}
	return mean, sd
}

// chainSummary summarises the draws of several chains of equal length:
// means and standard deviations of the pooled draws, the standard errors
// of the means from metric.ESS of the chains, and those of the standard
// deviations from the ESS of the squared deviations.
func chainSummary(name string, chains []*mat.Dense) summary {
	rows, d := chains[0].Dims()
	pooled := mat.NewDense(rows*len(chains), d, nil)
	for c, ch := range chains {
		pooled.Slice(c*rows, (c+1)*rows, 0, d).(*mat.Dense).Copy(ch)
	}
	mean, sd := momentsOf(pooled)
	ess := metric.ESS(chains, nil)
	sq := make([]*mat.Dense, len(chains))
	for c, ch := range chains {
		sq[c] = mat.NewDense(rows, d, nil)
		sq[c].Apply(func(_, j int, v float64) float64 { v -= mean[j]; return v * v }, ch)
	}
	essSq := metric.ESS(sq, nil)
	sqPooled := mat.NewDense(rows*len(chains), d, nil)
	for c := range sq {
		sqPooled.Slice(c*rows, (c+1)*rows, 0, d).(*mat.Dense).Copy(sq[c])
	}
	_, sdSq := momentsOf(sqPooled)
	s := summary{name: name, mean: mean, sd: sd, seMean: make([]float64, d), seSD: make([]float64, d)}
	for j := range mean {
		s.seMean[j] = sd[j] / math.Sqrt(ess[j])
		s.seSD[j] = sdSq[j] / math.Sqrt(essSq[j]) / (2 * sd[j])
	}
	return s
}

// splitRows returns the k consecutive blocks of equal height of X.
func splitRows(X *mat.Dense, k int) []*mat.Dense {
	n, d := X.Dims()
	if n%k != 0 {
		panic(fmt.Sprintf("crosscheck: %d rows do not split into %d chains", n, k))
	}
	h := n / k
	out := make([]*mat.Dense, k)
	for c := range out {
		out[c] = mat.DenseCopyOf(X.Slice(c*h, (c+1)*h, 0, d))
	}
	return out
}

// compare checks the means and standard deviations of got against the
// reference ref coordinate by coordinate, with the tolerances of the
// package documentation, and returns the table of the comparison.
func compare(t *testing.T, ref, got summary) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s against %s:\n  j    mean_ref  SE_ref   mean     SE      |Δ|/tol   sd_ref  sd      |Δ|/tol\n", got.name, ref.name)
	for j := range ref.mean {
		tolM := 4*math.Hypot(ref.seMean[j], got.seMean[j]) + got.biasMean*ref.sd[j]
		tolS := 4*math.Hypot(ref.seSD[j], got.seSD[j]) + got.biasSD*ref.sd[j]
		dm := math.Abs(got.mean[j] - ref.mean[j])
		ds := math.Abs(got.sd[j] - ref.sd[j])
		fmt.Fprintf(&b, "  %d  %8.4f  %.4f  %8.4f  %.4f  %.2f      %.4f  %.4f  %.2f\n",
			j, ref.mean[j], ref.seMean[j], got.mean[j], got.seMean[j], dm/tolM, ref.sd[j], got.sd[j], ds/tolS)
		if !(dm <= tolM) {
			t.Errorf("%s: mean of coordinate %d is %.4f, %s has %.4f: |Δ| = %.4f > tolerance %.4f",
				got.name, j, got.mean[j], ref.name, ref.mean[j], dm, tolM)
		}
		if !(ds <= tolS) {
			t.Errorf("%s: sd of coordinate %d is %.4f, %s has %.4f: |Δ| = %.4f > tolerance %.4f",
				got.name, j, got.sd[j], ref.name, ref.sd[j], ds, tolS)
		}
	}
	return b.String()
}
