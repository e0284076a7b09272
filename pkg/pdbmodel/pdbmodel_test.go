package pdbmodel

import (
	"fmt"

	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// gradTol is the largest relative error maxⱼ |∂ⱼ − fdⱼ| / max(1, |∂ⱼ|)
// accepted between a model's gradient and its five-point central
// difference with step fdStep.
const gradTol = 1e-6

func TestRegistry(t *testing.T) {
	var want []string
	for _, c := range cases {
		want = append(want, c.model)
	}
	slices.Sort(want)
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v\nwant the tested models %v", got, want)
	}
	if _, err := New("no_such_model", nil); err == nil || !strings.Contains(err.Error(), `no model "no_such_model"`) {
		t.Errorf("New of an unknown model: error %v", err)
	}
}

// checkGradient compares the gradient with finite differences at the
// points and returns the largest relative error.
func checkGradient(t *testing.T, m *Model, points [][]float64, h float64) float64 {
	t.Helper()
	d := m.Target.Dim()
	f := func(u []float64) float64 { return m.Target.LogProbGrad(u, make([]float64, d)) }
	var worst float64
	for _, u := range points {
		g := make([]float64, d)
		lp := m.Target.LogProbGrad(u, g)
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			t.Fatalf("log density %v at u = %v", lp, u)
		}
		fd := fdGrad(f, u, h)
		e := relErr(g, fd)
		if e > gradTol {
			t.Errorf("u = %v:\n gradient %v\n differences %v\n relative error %.2g", u, g, fd, e)
		}
		worst = math.Max(worst, e)
	}
	return worst
}

// checkLogDensity compares the model's log density with the case's
// independent one as differences between consecutive points (the constants
// Stan drops cancel), and its constrained values with the case's.
func checkLogDensity(t *testing.T, m *Model, c modelCase, d tdata, points [][]float64) float64 {
	t.Helper()
	g := make([]float64, m.Target.Dim())
	var worst float64
	var prevLP, prevRef float64
	for i, u := range points {
		lp := m.Target.LogProbGrad(u, g)
		ref, named := c.ref(d, u)
		if got := m.Constrain(nil, u); relErr(got, named) > 1e-12 {
			t.Errorf("Constrain(%v) = %v, Stan's transforms give %v", u, got, named)
		}
		if i > 0 {
			diff, want := lp-prevLP, ref-prevRef
			e := math.Abs(diff-want) / math.Max(1, math.Abs(ref)+math.Abs(prevRef))
			if e > 1e-12 {
				t.Errorf("log p(u%d) − log p(u%d) = %v, from the Stan code %v (relative %.2g)", i, i-1, diff, want, e)
			}
			worst = math.Max(worst, e)
		}
		prevLP, prevRef = lp, ref
	}
	return worst
}

func initPoints(m *Model, rng *rand.Rand, n int) [][]float64 {
	var pts [][]float64
	for i := 0; i < n; i++ {
		u := make([]float64, m.Target.Dim())
		m.Init(rng, u)
		pts = append(pts, u)
	}
	return pts
}

// Synthetic data made here: the gradient against finite differences and the
// log density against the Stan code, at Stan's initial points.
func TestSynthetic(t *testing.T) {
	var table []string
	for i, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			d := toData(t, c.synth(rng))
			m, err := New(c.model, d)
			if err != nil {
				t.Fatal(err)
			}
			pts := initPoints(m, rng, 6)
			ge := checkGradient(t, m, pts, fdStep)
			le := checkLogDensity(t, m, c, d, pts)
			table = append(table, fmt.Sprintf("%-26s d=%-3d grad %.1e  log p %.1e", c.model, m.Target.Dim(), ge, le))
		})
	}
	t.Logf("synthetic data, 6 points uniform on (−2, 2)ᵈ, five-point differences h = %g:\n%s", fdStep, strings.Join(table, "\n"))
}

// The staged posteriordb data: the same checks at Stan's initial points and
// at reference draws, the names against the reference's keys, and a smoke
// test at the reference mean.
func TestStaged(t *testing.T) {
	var table []string
	for i, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			dir := stagedFolder(t, c.folder)
			d := stagedData(t, dir)
			ref := stagedReference(t, dir)
			m, err := New(c.model, d)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(m.Names, ref.names) {
				t.Fatalf("names %v\nreference %v", m.Names, ref.names)
			}
			rng := rand.New(rand.NewPCG(uint64(i), 2))
			pts := initPoints(m, rng, 5)
			ndraws := len(ref.draws[ref.names[0]])
			draw := make([]float64, len(m.Names))
			for k := 0; k < 5; k++ {
				at := rng.IntN(ndraws)
				for j, name := range m.Names {
					draw[j] = ref.draws[name][at]
				}
				u, err := m.Unconstrain(nil, draw)
				if err != nil {
					t.Fatalf("reference draw %d: %v", at, err)
				}
				pts = append(pts, u)
			}
			ge := checkGradient(t, m, pts, fdStep)
			le := checkLogDensity(t, m, c, d, pts)
			ratio := smoke(t, m, ref)
			table = append(table, fmt.Sprintf("%-26s d=%-3d grad %.1e  log p %.1e  smoke %.3f", c.model, m.Target.Dim(), ge, le, ratio))
		})
	}
	t.Logf("%s, 5 initial points and 5 reference draws, five-point differences h = %g; smoke: ‖Lᵀ∇‖ at the mean over its least value 3 sd away:\n%s",
		filepath.Clean(posteriordbDir), fdStep, strings.Join(table, "\n"))
}

// smoke evaluates the model at the reference mean mapped back to the
// unconstrained space (Unconstrain of the mean of the constrained draws)
// and 3 reference sd away from it in each coordinate, the sd and the
// covariance Σ = LLᵀ those of the unconstrained draws. The whitened
// gradient Lᵀ∇log p must be finite at the mean and smaller there than at
// every point 3 sd away: for a Gaussian posterior its norm is the
// Mahalanobis distance to the mean, ≈ √(d/n) at a mean of n draws and at
// least 3 a marginal 3 sd away. It returns the ratio of the norm at the
// mean to the least norm away.
func smoke(t *testing.T, m *Model, ref reference) float64 {
	t.Helper()
	d := m.Target.Dim()
	n := len(ref.draws[ref.names[0]])
	mean := make([]float64, len(m.Names))
	for j, name := range m.Names {
		for _, v := range ref.draws[name] {
			mean[j] += v
		}
		mean[j] /= float64(n)
	}
	center, err := m.Unconstrain(nil, mean)
	if err != nil {
		t.Fatalf("reference mean: %v", err)
	}
	U := mat.NewDense(n, d, nil)
	draw := make([]float64, len(m.Names))
	for k := 0; k < n; k++ {
		for j, name := range m.Names {
			draw[j] = ref.draws[name][k]
		}
		if _, err := m.Unconstrain(U.RawRowView(k), draw); err != nil {
			t.Fatalf("reference draw %d: %v", k, err)
		}
	}
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, U, nil)
	var chol mat.Cholesky
	if !chol.Factorize(&cov) {
		t.Fatal("the covariance of the unconstrained reference draws is not positive definite")
	}
	var L mat.TriDense
	chol.LTo(&L)
	whitened := func(u []float64) float64 {
		g := make([]float64, d)
		lp := m.Target.LogProbGrad(u, g)
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			t.Fatalf("log density %v at %v", lp, u)
		}
		var w mat.VecDense
		w.MulVec(L.T(), mat.NewVecDense(d, g))
		return mat.Norm(&w, 2)
	}
	at := whitened(center)
	least := math.Inf(1)
	for j := 0; j < d; j++ {
		for _, sign := range []float64{-3, 3} {
			v := append([]float64(nil), center...)
			v[j] += sign * math.Sqrt(cov.At(j, j))
			least = math.Min(least, whitened(v))
		}
	}
	if !(at < least) {
		t.Errorf("whitened gradient norm %.3g at the reference mean, not below %.3g, its least 3 sd away", at, least)
	}
	t.Logf("whitened gradient norm %.3g at the reference mean, least 3 sd away %.3g", at, least)
	return at / least
}
