package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// gaussSpec fixes a synthetic Gaussian target: its dimension and the seed of
// its mean and covariance.
type gaussSpec struct {
	name string
	d    int
	seed uint64
}

// gaussSpecs are the exact targets of the linear-convergence check.
var gaussSpecs = []gaussSpec{
	{"gauss2d", 2, 2},
	{"gauss10d", 10, 10},
}

// newGauss builds N(m, Σ): m ~ N(0, I), Σ = Q diag(λ) Qᵀ with Q a random
// rotation (QR of a Gaussian matrix) and λ log-uniform on [1/2, 2], so the
// target is well conditioned (condition number ≤ 4) but neither isotropic
// nor axis-aligned.
func newGauss(s gaussSpec) *target.Gaussian {
	rng := rand.New(rand.NewPCG(s.seed, 0x6761757373))
	m := make([]float64, s.d)
	for i := range m {
		m[i] = rng.NormFloat64()
	}
	a := mat.NewDense(s.d, s.d, nil)
	for i := 0; i < s.d; i++ {
		for j := 0; j < s.d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	lam := make([]float64, s.d)
	for i := range lam {
		lam[i] = math.Exp(math.Log(0.5) + rng.Float64()*math.Log(4))
	}
	cov := mat.NewSymDense(s.d, nil)
	for i := 0; i < s.d; i++ {
		for j := i; j < s.d; j++ {
			var v float64
			for k := 0; k < s.d; k++ {
				v += q.At(i, k) * lam[k] * q.At(j, k)
			}
			cov.SetSym(i, j, v)
		}
	}
	g, err := target.NewGaussian(m, cov)
	if err != nil {
		panic("experiment: " + err.Error())
	}
	return g
}

// medianBandwidth is the median heuristic of the evaluation kernel: h is the
// median distance between distinct pairs of (at most maxMedianDraws,
// evenly strided) rows of Y.
func medianBandwidth(Y mat.Matrix) float64 {
	if h := kernel.MedianDistance(Y, maxMedianDraws); h > 0 {
		return h
	}
	return 1
}

// maxMedianDraws bounds the rows the median heuristic looks at.
const maxMedianDraws = 1000

func gaussDataset(s gaussSpec) harness.Dataset {
	var once sync.Once
	var g *target.Gaussian
	var h float64
	build := func() {
		g = newGauss(s)
		draws := mat.NewDense(2000, s.d, nil)
		g.SampleRows(rand.New(rand.NewPCG(s.seed, 0x6d6564)), draws)
		h = medianBandwidth(draws)
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s d=%d seed=%d v1", s.name, s.d, s.seed))
	return harness.Dataset{
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			once.Do(build)
			return &harness.Problem{Target: g, Model: &GaussData{
				Info:  Info{Name: s.name, Label: fmt.Sprintf("Gaussian, d = %d", s.d), Key: hex.EncodeToString(sum[:8])},
				Gauss: g, EvalH: h,
			}}, nil
		},
		Checksums: func(split int, env *harness.Env) (map[string]string, error) {
			return map[string]string{s.name: hex.EncodeToString(sum[:])}, nil
		},
	}
}
