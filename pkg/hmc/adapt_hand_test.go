package hmc

import (
	"math"
	"testing"
)

// The adapted metric is Stan's regularised window estimate
// (n/(n+5))·Σ̂ + 10⁻³·(5/(n+5))·I, Σ̂ the sample covariance with n − 1.
// Five draws of two coordinates, by hand:
//
//	x: 1 2 3 4 5    mean 3, Σ(x − x̄)² = 4+1+0+1+4 = 10, var 10/4 = 2.5
//	y: 0 0 0 0 10   mean 2, Σ(y − ȳ)² = 4·4 + 64 = 80, var 80/4 = 20
//	Σ(x − x̄)(y − ȳ) = 4 + 2 + 0 − 2 + 16 = 20, cov 20/4 = 5
//
// With n/(n+5) = 1/2 and 10⁻³·5/(n+5) = 0.0005 on the diagonal:
//
//	M⁻¹ = [1.2505 2.5; 2.5 10.0005]
//
// Dividing by n instead of n − 1 gives diag(1.0005, 8.0005).
func TestAdaptedMetricByHand(t *testing.T) {
	draws := [][]float64{{1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 10}}
	for _, dense := range []bool{false, true} {
		wf := newWelford(2, dense)
		m := newEuclidean(2, dense)
		// A restart forgets what came before.
		wf.add([]float64{100, -100})
		wf.restart()
		for _, x := range draws {
			wf.add(x)
		}
		wf.update(m)
		if math.Abs(m.minv[0]-1.2505) > 1e-12 || math.Abs(m.minv[1]-10.0005) > 1e-12 {
			t.Errorf("dense %v: diagonal of M⁻¹ %v, want [1.2505 10.0005]", dense, m.minv)
		}
		if dense {
			want := []float64{1.2505, 2.5, 2.5, 10.0005}
			for k, v := range m.cov.Data {
				if math.Abs(v-want[k]) > 1e-12 {
					t.Errorf("dense M⁻¹ %v, want %v", m.cov.Data, want)
					break
				}
			}
		}
	}
}

// Through Stan's window schedule: a warm-up of 20 has an initial buffer of
// 3 draws, one slow window of 15 (draws 3…17) and a terminal buffer of 2.
// The window holds 1 2 3 4 5 three times: mean 3, Σ(x − x̄)² = 30, so
// Σ̂ = 30/14 = 15/7 and M⁻¹ = (15/20)(15/7) + 10⁻³·5/20 = 45/28 + 0.00025.
// The buffers' draws (1000) take no part. Dividing by n gives 1.50025.
func TestWindowedMetricByHand(t *testing.T) {
	w := newWindows(20)
	wf := newWelford(1, false)
	m := newEuclidean(1, false)
	updates := 0
	for i := range 20 {
		x := 1000.0
		if i >= 3 && i <= 17 {
			x = float64((i-3)%5 + 1)
		}
		if w.learn(&wf, []float64{x}, m) {
			updates++
			if i != 17 {
				t.Errorf("the window ended at draw %d, want 17", i)
			}
		}
	}
	if want := 45.0/28 + 0.00025; updates != 1 || math.Abs(m.minv[0]-want) > 1e-12 {
		t.Errorf("%d updates, M⁻¹ = %.15g, want 1 update and %.15g", updates, m.minv[0], want)
	}
}
