package mmdfw

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// findMAP moves x to a (near) maximiser of log p by L-BFGS and returns the
// per-datapoint gradient evaluations it spent. With Settings.MAPBatch each
// evaluated point gets a fresh minibatch.
//
// The optimiser is a plain L-BFGS (memory 10, two-loop recursion, Armijo
// backtracking). gonum's optimize package would need golang.org/x/tools in
// the module graph through stat/distmv, which this module does not carry.
func findMAP(ctx context.Context, t target.Target, x []float64, s *Settings, rng *rand.Rand) (int64, error) {
	d := len(x)
	var evals int64
	st, stoch := t.(target.Stochastic)
	var batch []int
	if stoch && s.MAPBatch > 0 && s.MAPBatch < st.NData() {
		batch = make([]int, s.MAPBatch)
	}
	nd := int64(target.NData(t))
	// f returns −log p(x) and writes −∇log p(x) into g.
	f := func(x, g []float64) float64 {
		var lp float64
		if batch != nil {
			for i := range batch {
				batch[i] = rng.IntN(st.NData())
			}
			lp = st.MinibatchLogProbGrad(x, g, batch)
			evals += int64(len(batch))
		} else {
			lp = t.LogProbGrad(x, g)
			evals += nd
		}
		for j := range g {
			g[j] = -g[j]
		}
		return -lp
	}
	const m = 10
	sMem := make([][]float64, m)
	yMem := make([][]float64, m)
	rho := make([]float64, m)
	alpha := make([]float64, m)
	for i := range sMem {
		sMem[i] = make([]float64, d)
		yMem[i] = make([]float64, d)
	}
	g := make([]float64, d)
	gNew := make([]float64, d)
	xNew := make([]float64, d)
	p := make([]float64, d)
	fx := f(x, g)
	if math.IsNaN(fx) || math.IsInf(fx, 0) {
		return evals, fmt.Errorf("mmdfw: MAP search: −log p = %v at the starting point", fx)
	}
	stored, head := 0, 0
	for it := 0; it < s.MAPIterations; it++ {
		if err := ctx.Err(); err != nil {
			return evals, err
		}
		if normInf(g) < s.MAPGradTol {
			break
		}
		// p = −H g by the two-loop recursion.
		for j := range p {
			p[j] = -g[j]
		}
		for k := 0; k < stored; k++ {
			i := (head - 1 - k + m) % m
			alpha[i] = rho[i] * dot(sMem[i], p)
			for j := range p {
				p[j] -= alpha[i] * yMem[i][j]
			}
		}
		if stored > 0 {
			i := (head - 1 + m) % m
			gamma := dot(sMem[i], yMem[i]) / dot(yMem[i], yMem[i])
			for j := range p {
				p[j] *= gamma
			}
		} else {
			// First step: unit length.
			c := 1 / math.Max(1, math.Sqrt(dot(g, g)))
			for j := range p {
				p[j] *= c
			}
		}
		for k := stored - 1; k >= 0; k-- {
			i := (head - 1 - k + m) % m
			beta := rho[i] * dot(yMem[i], p)
			for j := range p {
				p[j] += (alpha[i] - beta) * sMem[i][j]
			}
		}
		slope := dot(g, p)
		if !(slope < 0) {
			// Not a descent direction: restart from steepest descent.
			stored = 0
			for j := range p {
				p[j] = -g[j]
			}
			slope = -dot(g, g)
		}
		// Armijo backtracking.
		step := 1.0
		var fNew float64
		ok := false
		for ls := 0; ls < 40; ls++ {
			for j := range xNew {
				xNew[j] = x[j] + step*p[j]
			}
			fNew = f(xNew, gNew)
			if fNew <= fx+1e-4*step*slope && !math.IsNaN(fNew) {
				ok = true
				break
			}
			step *= 0.5
		}
		if !ok {
			// No decrease along the direction: x is as good as round-off
			// lets us tell.
			break
		}
		i := head
		var sy float64
		for j := range x {
			sMem[i][j] = xNew[j] - x[j]
			yMem[i][j] = gNew[j] - g[j]
			sy += sMem[i][j] * yMem[i][j]
		}
		if sy > 1e-12*math.Sqrt(dot(sMem[i], sMem[i])*dot(yMem[i], yMem[i])) {
			rho[i] = 1 / sy
			head = (head + 1) % m
			if stored < m {
				stored++
			}
		}
		done := math.Abs(fx-fNew) <= 1e-12*math.Max(1, math.Abs(fx))
		copy(x, xNew)
		copy(g, gNew)
		fx = fNew
		if done && batch == nil {
			break
		}
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return evals, fmt.Errorf("mmdfw: MAP search ended at a non-finite point")
		}
	}
	return evals, nil
}

func normInf(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
