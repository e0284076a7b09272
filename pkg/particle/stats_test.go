package particle

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestCovHandValues(t *testing.T) {
	s := Set{X: mat.NewDense(3, 2, []float64{0, 0, 1, 2, 4, 4}), W: []float64{0.5, 0.25, 0.25}}
	// μ = (1.25, 1.5); deviations (−1.25, −1.5), (−0.25, 0.5), (2.75, 2.5).
	want := [][]float64{{2.6875, 2.625}, {2.625, 2.75}}
	for _, scale := range []float64{1, 3} {
		u := s.Clone()
		for i := range u.W {
			u.W[i] *= scale
		}
		got := u.Cov(nil)
		for a := 0; a < 2; a++ {
			for b := 0; b < 2; b++ {
				if math.Abs(got.At(a, b)-want[a][b]) > 1e-14 {
					t.Fatalf("scale %v: Cov[%d,%d] = %v, want %v", scale, a, b, got.At(a, b), want[a][b])
				}
			}
		}
	}
}

func TestCovEqualWeightsMatchesGonum(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	n, d := 50, 4
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rnd.NormFloat64()*float64(j+1)+float64(i%3))
		}
	}
	s := Set{X: x, W: Equal(n)}
	var dst mat.SymDense // empty: Cov sizes it
	got := s.Cov(&dst)
	want := mat.NewSymDense(d, nil)
	stat.CovarianceMatrix(want, x, nil) // divides by n − 1
	want.ScaleSym(float64(n-1)/float64(n), want)
	if !mat.EqualApprox(got, want, 1e-12) {
		t.Fatalf("Cov =\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(want))
	}
	// A reused dst is overwritten, not accumulated into.
	again := s.Cov(got)
	if !mat.EqualApprox(again, want, 1e-12) {
		t.Fatal("Cov accumulates into a reused dst")
	}
}

func TestQuantilesHandValues(t *testing.T) {
	// Sorted: 1 (0.4), 2 (0.2), 3 (0.1), 4 (0.3); F = 0.4, 0.6, 0.7, 1.
	s := Set{X: mat.NewDense(5, 1, []float64{3, 1, 2, 4, -10}), W: []float64{0.1, 0.4, 0.2, 0.3, 0}}
	p := []float64{0, 0.4, 0.41, 0.5, 0.6, 0.65, 0.7, 0.9, 1}
	want := []float64{1, 1, 2, 2, 2, 3, 3, 4, 4}
	got := s.Quantiles(nil, 0, p)
	for k := range p {
		if got[k] != want[k] {
			t.Errorf("Q(%v) = %v, want %v", p[k], got[k], want[k])
		}
	}
}

func TestQuantilesEqualWeightsMatchGonum(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	n := 37
	x := mat.NewDense(n, 2, nil)
	col := make([]float64, n)
	for i := 0; i < n; i++ {
		x.Set(i, 0, rnd.Float64())
		col[i] = rnd.NormFloat64()
		x.Set(i, 1, col[i])
	}
	sort.Float64s(col)
	s := Set{X: x, W: Equal(n)}
	p := []float64{0, 0.05, 0.25, 0.5, 0.75, 0.95, 1}
	got := s.Quantiles(make([]float64, len(p)), 1, p)
	for k, q := range p {
		// 1/n summed n times is not exactly 1: compare away from the
		// atoms of the distribution function.
		if want := stat.Quantile(q, stat.Empirical, col, nil); got[k] != want {
			t.Errorf("Q(%v) = %v, gonum %v", q, got[k], want)
		}
	}
}

func TestESS(t *testing.T) {
	for _, c := range []struct {
		w    []float64
		want float64
	}{
		{Equal(8), 8},
		{[]float64{0, 0, 5, 0}, 1},
		{[]float64{1, 1, 2}, 16.0 / 6},
		{[]float64{2, 2, 4}, 16.0 / 6},
		{nil, 0},
	} {
		s := Set{W: c.w}
		if got := s.ESS(); math.Abs(got-c.want) > 1e-14 {
			t.Errorf("ESS(%v) = %v, want %v", c.w, got, c.want)
		}
	}
}

func TestStatsPanics(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{1, 2})
	for name, f := range map[string]func(){
		"zero weights":  func() { Set{X: x, W: []float64{0, 0}}.Cov(nil) },
		"bad dst":       func() { Set{X: x, W: Equal(2)}.Cov(mat.NewSymDense(2, nil)) },
		"negative":      func() { Set{X: x, W: []float64{-1, 2}}.Quantiles(nil, 0, []float64{0.5}) },
		"probability":   func() { Set{X: x, W: Equal(2)}.Quantiles(nil, 0, []float64{1.5}) },
		"coordinate":    func() { Set{X: x, W: Equal(2)}.Quantiles(nil, 1, []float64{0.5}) },
		"weight length": func() { Set{X: x, W: Equal(3)}.Cov(nil) },
	} {
		func() {
			defer func() {
				r := recover()
				if msg, ok := r.(string); !ok || !strings.HasPrefix(msg, "particle: ") {
					t.Errorf("%s: panic %v, want a particle: panic", name, r)
				}
			}()
			f()
		}()
	}
}
