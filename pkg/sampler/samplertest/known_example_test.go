package samplertest_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Metropolis is a method of one's own: 4 random-walk Metropolis chains of
// Steps steps from X0 + N(0, I) (X0 the start's point, the origin by
// default), proposal N(0, (2.38²/d) I), keeping every
// 10th state of the second half. It says when its chains disagree: R̂ of a
// coordinate, √((n−1)/n + B/(nW)) with B/n the variance of the chains' means
// and W the mean of their variances, above 1.05 raises the flag "rhat".
type Metropolis struct {
	Steps int // per chain; default 20000
}

// Run samples t.
func (m Metropolis) Run(ctx context.Context, t target.Target, start particle.Start, src rand.Source, _ particle.Recorder) (particle.Set, error) {
	const chains, thin = 4, 10
	d, steps := t.Dim(), cmp.Or(m.Steps, 20000)
	if err := start.NoParticles("metropolis"); err != nil {
		return particle.Set{}, err
	}
	x0 := start.X0
	if x0 == nil {
		x0 = make([]float64, d)
	} else if len(x0) != d {
		return particle.Set{}, fmt.Errorf("metropolis: X0 has length %d, target dimension is %d", len(x0), d)
	}
	keep := steps / 2 / thin
	rng := rand.New(src)
	x := mat.NewDense(chains*keep, d, nil)
	cur, prop, grad := make([]float64, d), make([]float64, d), make([]float64, d)
	scale := 2.38 / math.Sqrt(float64(d))
	for c := range chains {
		if err := ctx.Err(); err != nil {
			return particle.Set{}, err
		}
		for j := range cur {
			cur[j] = x0[j] + rng.NormFloat64()
		}
		lp := t.LogProbGrad(cur, grad)
		for s := 1; s <= steps; s++ {
			for j := range prop {
				prop[j] = cur[j] + scale*rng.NormFloat64()
			}
			// A proposal of log p = −∞ (outside the support) is never taken.
			if lq := t.LogProbGrad(prop, grad); math.Log(rng.Float64()) < lq-lp {
				copy(cur, prop)
				lp = lq
			}
			if s > steps/2 && (s-steps/2)%thin == 0 {
				copy(x.RawRowView(c*keep+(s-steps/2)/thin-1), cur)
			}
		}
	}
	set := particle.Set{X: x, W: particle.Equal(chains * keep)}
	for j := range d {
		var means, vars [chains]float64
		for c := range chains {
			for i := range keep {
				means[c] += x.At(c*keep+i, j) / float64(keep)
			}
			for i := range keep {
				dv := x.At(c*keep+i, j) - means[c]
				vars[c] += dv * dv / float64(keep-1)
			}
		}
		var mm, bw, w float64
		for c := range chains {
			mm += means[c] / chains
			w += vars[c] / chains
		}
		for c := range chains {
			bw += (means[c] - mm) * (means[c] - mm) / (chains - 1)
		}
		n := float64(keep)
		if rhat := math.Sqrt((n-1)/n + bw/w); rhat > 1.05 {
			set.Diag.Raise("rhat", "coordinate %d: R̂ = %.2f > 1.05", j+1, rhat)
		}
	}
	return set, nil
}

// A method of one's own meets the known targets. In its package's tests,
//
//	samplertest.Known(t, samplertest.Method{
//		Zero: Metropolis{},
//	}, samplertest.KnownOptions{Targets: []string{"gauss5", "mix1", "gamma"}})
//
// runs it on the targets and fails on a silently wrong answer; RunKnown
// gives the judgement of one run.
func ExampleRunKnown() {
	m := samplertest.Method{Zero: Metropolis{}}
	for _, name := range []string{"gauss5", "mix1", "gamma", "funnel"} {
		r := samplertest.RunKnown(context.Background(), m, samplertest.KnownTargetByName(name), 0)
		fmt.Printf("%-7s %v, %d draws, %d outside the support\n", name, r.Verdict, r.Set.Len(), r.Outside)
	}
	// Output:
	// gauss5  pass, 4000 draws, 0 outside the support
	// mix1    pass, 4000 draws, 0 outside the support
	// gamma   pass, 4000 draws, 0 outside the support
	// funnel  flagged, 4000 draws, 0 outside the support
}
