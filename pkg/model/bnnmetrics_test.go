package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

// TestMetricsCacheSameBits grows a particle set a few rows at a time (as
// MMD-FW's frozen particles), then moves every particle (as SVGD's), then
// changes one early particle, and checks after every step that the cache
// returns BNN.Metrics bit for bit, with a feature count above gonum's Gemm
// block (two k-blocks) and below it, with and without the cap.
func TestMetricsCacheSameBits(t *testing.T) {
	for _, tc := range []struct{ p, h, rows, maxFloats int }{
		{13, 50, 301, 0}, {90, 7, 130, 0}, {5, 9, 40, 40 * 12},
	} {
		rng := rand.New(rand.NewPCG(uint64(tc.p), 9))
		X := testutil.RandDense(rng, 200, tc.p)
		y := testutil.RandVec(rng, 200, 1)
		m := NewBNN(X, y, tc.h)
		m.Workers = 2
		Xt := testutil.RandDense(rng, tc.rows, tc.p)
		yt := testutil.RandVec(rng, tc.rows, 3)
		c := m.NewMetricsCache(Xt, yt, 1.5, 2.5)
		c.MaxFloats = tc.maxFloats
		N := 40
		P := mat.NewDense(N, m.Dim(), nil)
		for i := 0; i < N; i++ {
			m.Init(rng, P.RawRowView(i))
		}
		check := func(what string, Q *mat.Dense) {
			t.Helper()
			n, _ := Q.Dims()
			w := make([]float64, n)
			for i := range w {
				w[i] = rng.Float64()
			}
			w[n/2] = 0
			r1, l1 := c.Metrics(Q, w)
			r2, l2 := m.Metrics(Xt, yt, Q, w, 1.5, 2.5)
			if math.Float64bits(r1) != math.Float64bits(r2) || math.Float64bits(l1) != math.Float64bits(l2) {
				t.Fatalf("p=%d %s, n=%d: cache (%v, %v), Metrics (%v, %v)", tc.p, what, n, r1, l1, r2, l2)
			}
		}
		for n := 1; n <= N; n += 1 + n/4 {
			check("growing", P.Slice(0, n, 0, m.Dim()).(*mat.Dense))
		}
		check("all", P)
		for i := 0; i < N; i++ {
			P.Set(i, 0, P.At(i, 0)+0.01)
		}
		check("all moved", P)
		P.Set(3, 1, P.At(3, 1)-0.5)
		check("one early particle moved", P)
		check("fewer", P.Slice(0, 10, 0, m.Dim()).(*mat.Dense))
	}
}

// BenchmarkMetricsSnapshot evaluates one snapshot of a greedy run on
// protein-shaped rows (4,573 test rows of 9 features, 50 hidden units): 300
// frozen particles and 2 new ones, directly and through a MetricsCache
// that already holds the 300.
func BenchmarkMetricsSnapshot(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	X := testutil.RandDense(rng, 500, 9)
	m := NewBNN(X, testutil.RandVec(rng, 500, 1), 50)
	m.Workers = 1
	Xt := testutil.RandDense(rng, 4573, 9)
	yt := testutil.RandVec(rng, 4573, 3)
	const n = 302
	P := mat.NewDense(n, m.Dim(), nil)
	for i := 0; i < n; i++ {
		m.Init(rng, P.RawRowView(i))
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = 1.0 / n
	}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Metrics(Xt, yt, P, w, 0, 1)
		}
	})
	b.Run("cache", func(b *testing.B) {
		c := m.NewMetricsCache(Xt, yt, 0, 1)
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			c.Metrics(P.Slice(0, n-2, 0, m.Dim()).(*mat.Dense), w[:n-2])
			b.StartTimer()
			c.Metrics(P, w)
		}
	})
}
