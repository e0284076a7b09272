package sp

import (
	"context"
	"math"
)

// nelderMead is a Nelder–Mead simplex minimiser with the dimension-adapted
// coefficients of Gao & Han (2012), the ones gonum's optimize.NelderMead
// uses: reflection 1, expansion 1 + 2/d, contraction 3/4 − 1/(2d), shrink
// 1 − 1/d. Its storage is allocated once and reused by every step, so a
// refinement allocates nothing beyond what the objective does (nothing).
type nelderMead struct {
	d        int
	verts    []float64 // (d+1)×d vertices, row-major
	vals     []float64 // objective values at the vertices
	order    []int     // vertex indices sorted by ascending value
	centroid []float64
	xr, xe   []float64 // reflected, expanded/contracted trial points
}

func newNelderMead(d int) *nelderMead {
	nm := &nelderMead{
		d:        d,
		verts:    make([]float64, (d+1)*d),
		vals:     make([]float64, d+1),
		order:    make([]int, d+1),
		centroid: make([]float64, d),
		xr:       make([]float64, d),
		xe:       make([]float64, d),
	}
	return nm
}

// Termination thresholds of the refinement: the simplex has collapsed when
// every vertex lies within nmTolX·h (h the initial edge) of the best in
// every coordinate and every value within nmTolF of the best, as MATLAB's
// fminsearch tests with the original's TolFun = 10⁻³.
const (
	nmTolX = 1e-3
	nmTolF = 1e-3
)

// minimize runs Nelder–Mead from x0 (with known value f0) on an initial
// simplex of edge h along the coordinate axes, spending at most maxEvals
// calls of f, and returns the number of calls. The best point is the
// caller's business: the objective tracks it.
func (nm *nelderMead) minimize(ctx context.Context, f func([]float64) float64, x0 []float64, f0, h float64, maxEvals int) int {
	d := nm.d
	evals := 0
	vert := func(i int) []float64 { return nm.verts[i*d : (i+1)*d] }

	copy(vert(0), x0)
	nm.vals[0] = f0
	for i := 1; i <= d; i++ {
		if evals >= maxEvals {
			return evals
		}
		v := vert(i)
		copy(v, x0)
		v[i-1] += h
		nm.vals[i] = f(v)
		evals++
	}
	for i := range nm.order {
		nm.order[i] = i
	}
	nm.sort()

	fd := float64(d)
	alpha, gamma := 1.0, 1+2/fd
	rho, sigma := 0.75-1/(2*fd), 1-1/fd
	if d == 1 {
		gamma, rho, sigma = 2, 0.5, 0.5
	}

	for iter := 0; evals < maxEvals; iter++ {
		if iter%16 == 0 && ctx.Err() != nil {
			return evals
		}
		best, worst, second := nm.order[0], nm.order[d], nm.order[d-1]
		if nm.converged(h) {
			return evals
		}
		// Centroid of all vertices but the worst.
		for j := range nm.centroid {
			nm.centroid[j] = 0
		}
		for _, i := range nm.order[:d] {
			for j, v := range vert(i) {
				nm.centroid[j] += v
			}
		}
		for j := range nm.centroid {
			nm.centroid[j] /= fd
		}
		xw := vert(worst)
		for j, c := range nm.centroid {
			nm.xr[j] = c + alpha*(c-xw[j])
		}
		fr := f(nm.xr)
		evals++
		switch {
		case fr < nm.vals[best]:
			if evals >= maxEvals {
				nm.replace(worst, nm.xr, fr)
				continue
			}
			for j, c := range nm.centroid {
				nm.xe[j] = c + gamma*(nm.xr[j]-c)
			}
			fe := f(nm.xe)
			evals++
			if fe < fr {
				nm.replace(worst, nm.xe, fe)
			} else {
				nm.replace(worst, nm.xr, fr)
			}
			continue
		case fr < nm.vals[second]:
			nm.replace(worst, nm.xr, fr)
			continue
		}
		if evals >= maxEvals {
			break
		}
		// Contraction: outside when the reflection beat the worst vertex,
		// inside otherwise.
		if fr < nm.vals[worst] {
			for j, c := range nm.centroid {
				nm.xe[j] = c + rho*(nm.xr[j]-c)
			}
			fc := f(nm.xe)
			evals++
			if fc <= fr {
				nm.replace(worst, nm.xe, fc)
				continue
			}
		} else {
			for j, c := range nm.centroid {
				nm.xe[j] = c + rho*(xw[j]-c)
			}
			fc := f(nm.xe)
			evals++
			if fc < nm.vals[worst] {
				nm.replace(worst, nm.xe, fc)
				continue
			}
		}
		// Shrink towards the best vertex.
		xb := vert(best)
		for _, i := range nm.order[1:] {
			if evals >= maxEvals {
				break
			}
			v := vert(i)
			for j := range v {
				v[j] = xb[j] + sigma*(v[j]-xb[j])
			}
			nm.vals[i] = f(v)
			evals++
		}
		nm.sort()
	}
	return evals
}

// replace puts x with value fx in place of vertex i and restores the order.
func (nm *nelderMead) replace(i int, x []float64, fx float64) {
	copy(nm.verts[i*nm.d:(i+1)*nm.d], x)
	nm.vals[i] = fx
	nm.sort()
}

// sort orders the vertex indices by value; insertion sort, since at most one
// vertex is out of place after a replacement.
func (nm *nelderMead) sort() {
	o := nm.order
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && nm.vals[o[j]] < nm.vals[o[j-1]]; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
}

// converged reports whether the simplex has collapsed (see nmTolX, nmTolF).
func (nm *nelderMead) converged(h float64) bool {
	d := nm.d
	b := nm.order[0]
	fb := nm.vals[b]
	xb := nm.verts[b*d : (b+1)*d]
	for _, i := range nm.order[1:] {
		if math.Abs(nm.vals[i]-fb) > nmTolF {
			return false
		}
		for j, v := range nm.verts[i*d : (i+1)*d] {
			if math.Abs(v-xb[j]) > nmTolX*h {
				return false
			}
		}
	}
	return true
}
