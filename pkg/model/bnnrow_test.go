package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func sameBits(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// rowGradAddScaled is rowGrad as written with floats.AddScaled.
func (m *BNN) rowGradAddScaled(xr []float64, yi float64, th, g, a []float64) float64 {
	p, h := m.p, m.h
	b1 := th[p*h : p*h+h]
	w2 := th[p*h+h : p*h+2*h]
	copy(a, b1)
	for j, xj := range xr {
		floats.AddScaled(a, xj, th[j*h:j*h+h])
	}
	r := yi - reluDot(a, w2, th[p*h+2*h])
	m.backprop(g, a, w2, r)
	for j, xj := range xr {
		floats.AddScaled(g[j*h:j*h+h], xj, a)
	}
	return r
}

// The minibatch gradient has the bits of the AddScaled formulation.
func TestBNNMinibatchGradBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range []struct{ n, p, h int }{{60, 13, 50}, {40, 8, 100}, {30, 3, 7}} {
		X := mat.NewDense(sh.n, sh.p, nil)
		y := make([]float64, sh.n)
		for i := 0; i < sh.n; i++ {
			for j := 0; j < sh.p; j++ {
				X.Set(i, j, rng.NormFloat64())
			}
			y[i] = rng.NormFloat64()
		}
		m := NewBNN(X, y, sh.h)
		th := make([]float64, m.Dim())
		m.Init(rng, th)
		batch := make([]int, 25)
		for i := range batch {
			batch[i] = rng.IntN(sh.n)
		}
		got := make([]float64, m.Dim())
		lp := m.MinibatchLogProbGrad(th, got, batch)
		want := make([]float64, m.Dim())
		a := make([]float64, sh.h)
		var sse float64
		for _, i := range batch {
			r := m.rowGradAddScaled(X.RawRowView(i), y[i], th, want, a)
			sse += r * r
		}
		wantLP := m.finish(th, want, sse, len(batch), float64(sh.n)/float64(len(batch)))
		if i := sameBits(got, want); i >= 0 {
			t.Fatalf("%+v: gradient %d = %v, AddScaled %v", sh, i, got[i], want[i])
		}
		if math.Float64bits(lp) != math.Float64bits(wantLP) {
			t.Fatalf("%+v: log p = %v, AddScaled %v", sh, lp, wantLP)
		}
	}
}
