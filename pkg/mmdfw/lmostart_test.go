package mmdfw_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// posteriorLike is N(m, Σ) in d dimensions with standard deviations
// log-spaced from 0.01 to 1 along a random rotation: the shape of a
// posterior whose data pin some directions far harder than others, where
// the median-heuristic bandwidth follows the widest directions.
func posteriorLike(t *testing.T, d int) *target.Gaussian {
	rng := rand.New(rand.NewPCG(56, 1))
	a := testutil.RandDense(rng, d, d)
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			var v float64
			for k := 0; k < d; k++ {
				sd := math.Pow(100, float64(k)/float64(d-1)) / 100
				v += q.At(i, k) * sd * sd * q.At(j, k)
			}
			cov.SetSym(i, j, v)
		}
	}
	g, err := target.NewGaussian(testutil.RandVec(rng, d, 1), cov)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLMOStartDefault: the default candidate start (InitLaplace, the best
// of DefaultStarts draws by the LMO objective where z exists) against the
// old one (an existing particle plus N(0, h²I)), each from the zero
// Settings with the exact embedding (BQ weights, the "self" direction), 60
// particles, 6 seeds, on a 20-dimensional posterior-like Gaussian: the mean
// log₁₀ MMD² must fall by more than four standard errors of the
// difference.
func TestLMOStartDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("twelve runs of 60 particles; skipped with -short")
	}
	g := posteriorLike(t, 20)
	const seeds = 6
	mean := func(init mmdfw.CandidateInit) (m, se float64) {
		var ls []float64
		for seed := uint64(0); seed < seeds; seed++ {
			s := mmdfw.Settings{N: 60, Candidates: mmdfw.Candidates{CandidateInit: init}}
			sStart, sIn := particle.Start{}, mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}
			s.Inputs = sIn
			mmdfwRes, err := mmdfw.Run(context.Background(), g, sStart, s, rand.NewPCG(seed, 3), nil)
			res, _ := mmdfwRes.Detail.(*mmdfw.Result)
			if err != nil {
				t.Fatal(err)
			}
			ls = append(ls, math.Log10(2*res.MMD2[len(res.MMD2)-1]))
		}
		return testutil.MeanSE(ls)
	}
	mNew, seNew := mean(mmdfw.InitAuto)
	mOld, seOld := mean(mmdfw.InitPerturb)
	se := math.Hypot(seNew, seOld)
	t.Logf("log₁₀ MMD² at N = 60: default %.2f ± %.2f, old perturbation %.2f ± %.2f", mNew, seNew, mOld, seOld)
	if !(mNew < mOld-4*se) {
		t.Errorf("default %.2f ± %.2f is not below the old %.2f ± %.2f by four standard errors", mNew, seNew, mOld, seOld)
	}
}

// TestStartsNeedZ: several candidate starts are compared by the LMO
// objective, which needs z; without it the run is refused with a message
// naming the setting, and a negative count is refused by Validate.
func TestStartsNeedZ(t *testing.T) {
	g := testutil.Gauss5(t)
	_, err := sampler.Set(mmdfw.Run(context.Background(), g, particle.Start{}, mmdfw.Settings{N: 5, Candidates: mmdfw.Candidates{Starts: 3, Scale: mmdfw.ScaleBandwidth}, Weighting: mmdfw.Weighting{Weights: mmdfw.Equal}}, rand.NewPCG(1, 2), nil))
	if err == nil || !strings.Contains(err.Error(), "Starts 3 needs z") {
		t.Errorf("Starts without z: error %v", err)
	}
	if err := (mmdfw.Settings{Candidates: mmdfw.Candidates{Starts: -1}}).Validate(); err == nil || !strings.Contains(err.Error(), "starts") {
		t.Errorf("Starts −1: error %v", err)
	}
	// With z the default is DefaultStarts, and an explicit 1 is one start:
	// both run.
	for _, k := range []int{0, 1} {
		if _, err := sampler.Set(mmdfw.Run(context.Background(), g, particle.Start{}, mmdfw.Settings{Inputs: mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}, N: 5, Candidates: mmdfw.Candidates{Starts: k}}, rand.NewPCG(1, 2), nil)); err != nil {
			t.Errorf("Starts %d with z: %v", k, err)
		}
	}
}
