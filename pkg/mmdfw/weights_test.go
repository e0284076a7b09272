package mmdfw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/kernel"
)

// steinSolveSerial is fistaSolve with the matrix-vector product written
// as the serial loop over each row of K₀.
func (s *weights) steinSolveSerial() {
	n := s.n
	c := s.cap
	L := s.fistaBound()
	if !(L > 0) {
		return
	}
	w := s.w[:n]
	y := s.tmp[:n]
	prev := s.tmp2[:n]
	copy(y, w)
	t := 1.0
	for it := 0; it < s.iters; it++ {
		copy(prev, w)
		for i := 0; i < n; i++ {
			var g float64
			for j, v := range s.K0[i*c : i*c+n] {
				g += v * y[j]
			}
			w[i] = y[i] - 2*g/L
		}
		projectSimplex(w, s.tmp3[:n])
		tn := (1 + math.Sqrt(1+4*t*t)) / 2
		beta := (t - 1) / tn
		t = tn
		for i := range y {
			y[i] = w[i] + beta*(w[i]-prev[i])
		}
	}
}

// The Stein weights have the bits of the serial row-by-row solver after
// every added particle, on a Stein kernel matrix of particles with scores
// (in d = 3 a tenth or more of the weights are 0, so the skipped rows of
// the sparse product are exercised).
func TestSteinWeightsSerialBits(t *testing.T) {
	const N, d = 120, 3
	rng := rand.New(rand.NewPCG(2, 3))
	X := mat.NewDense(N, d, nil)
	S := mat.NewDense(N, d, nil)
	for i := 0; i < N; i++ {
		for j := 0; j < d; j++ {
			X.Set(i, j, rng.NormFloat64())
			S.Set(i, j, -X.At(i, j)+0.3*rng.NormFloat64())
		}
	}
	k := kernel.RBF{H: 1.5}
	a := newWeights(Stein, N, false, 0, 1, 50)
	b := newWeights(Stein, N, false, 0, 1, 50)
	krow := make([]float64, N)
	k0row := make([]float64, N)
	for n := 0; n < N; n++ {
		x, s := X.RawRowView(n), S.RawRowView(n)
		for i := 0; i <= n; i++ {
			krow[i] = k.Eval(x, X.RawRowView(i))
			k0row[i] = kernel.Stein(k, x, X.RawRowView(i), s, S.RawRowView(i))
		}
		if err := a.add(krow[:n+1], 0, k0row[:n+1]); err != nil {
			t.Fatal(err)
		}
		// b repeats a's steps with the serial solver.
		c := b.cap
		for i := 0; i <= n; i++ {
			b.K0[n*c+i], b.K0[i*c+n] = k0row[i], k0row[i]
		}
		b.n = n + 1
		if n == 0 {
			b.w[0] = 1
		} else {
			b.fwStep(1 / float64(n+1))
			b.steinSolveSerial()
		}
		for i := 0; i <= n; i++ {
			if math.Float64bits(a.w[i]) != math.Float64bits(b.w[i]) {
				t.Fatalf("after %d particles: w[%d] = %v, serial %v", n+1, i, a.w[i], b.w[i])
			}
		}
	}
	// The sparse product's skipped rows were exercised.
	zeros := 0
	for _, v := range a.w[:N] {
		if v == 0 {
			zeros++
		}
	}
	if zeros < N/10 {
		t.Fatalf("%d of %d final weights are 0: the test does not exercise the skipped rows", zeros, N)
	}
}

// BenchmarkSteinSolve is the Stein weights' solve (300 projected-gradient
// iterations, the default) over n particles: 300 products K₀y of n² terms
// each, on the kernel matrix of N(0, I) points in d = 10 with scores −x.
func BenchmarkSteinSolve(b *testing.B) {
	for _, n := range []int{250, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			const d = 10
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			X := mat.NewDense(n, d, nil)
			for i := 0; i < n; i++ {
				for j := 0; j < d; j++ {
					X.Set(i, j, rng.NormFloat64())
				}
			}
			S := mat.DenseCopyOf(X)
			S.Scale(-1, S)
			k := kernel.RBF{H: math.Sqrt(d)}
			s := newWeights(Stein, n, false, 0, 1, DefaultSteinIterations)
			c := s.cap
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					v := kernel.Stein(k, X.RawRowView(i), X.RawRowView(j), S.RawRowView(i), S.RawRowView(j))
					s.K0[i*c+j], s.K0[j*c+i] = v, v
				}
			}
			s.n = n
			b.ReportAllocs()
			for b.Loop() {
				for i := range s.w[:n] {
					s.w[i] = 1 / float64(n)
				}
				s.fistaSolve()
			}
			b.ReportMetric(float64(DefaultSteinIterations*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gterm/s")
		})
	}
}

// TestGramOnlyWhereRead checks that the Gram matrix is kept exactly for the
// rules that read it (BQ, the line search) and for an embedding's MMD².
func TestGramOnlyWhereRead(t *testing.T) {
	for _, tc := range []struct {
		rule  Rule
		withZ bool
		want  bool
	}{
		{Equal, false, false}, {Classic, false, false}, {Schedule, false, false}, {Stein, false, false},
		{BQ, false, true}, {LineSearch, false, true}, {Equal, true, true}, {Stein, true, true},
	} {
		if got := newWeights(tc.rule, 8, tc.withZ, 0, 1, 10).needsGram(); got != tc.want {
			t.Errorf("rule %v, embedding %v: Gram kept %v, want %v", tc.rule, tc.withZ, got, tc.want)
		}
	}
}

// TestProjectSimplexAboveBits checks that a lower bound from any subset of
// the entries leaves the projection's bits unchanged, on random vectors,
// vectors with ties and vectors whose whole mass is on one entry.
func TestProjectSimplexAboveBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(200)
		v := make([]float64, n)
		for i := range v {
			switch trial % 3 {
			case 0:
				v[i] = rng.NormFloat64() * 0.1
			case 1:
				v[i] = float64(rng.IntN(4)) / 8 // ties
			default:
				v[i] = -rng.Float64()
			}
		}
		if trial%3 == 2 {
			v[rng.IntN(n)] = 1.5
		}
		// Any nonempty subset gives a lower bound of the threshold.
		sum, k := v[0], 1
		for i := 1; i < n; i++ {
			if rng.IntN(3) == 0 {
				sum += v[i]
				k++
			}
		}
		want := slices.Clone(v)
		projectSimplex(want, make([]float64, n))
		got := slices.Clone(v)
		projectSimplexAbove(got, make([]float64, n), (sum-1)/float64(k))
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d, n = %d, entry %d: %v, full sort %v", trial, n, i, got[i], want[i])
			}
		}
	}
}
