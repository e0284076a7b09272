package pools_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/mmdfw/pools"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

func gaussian(t *testing.T) *target.Gaussian {
	g, err := target.NewGaussian([]float64{1, -1, 0.5}, mat.NewSymDense(3, []float64{1, 0.3, 0, 0.3, 0.8, 0.1, 0, 0.1, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestHMC: the HMC pool of a Gaussian has the target's mean within Monte
// Carlo error and at least size draws, its cost is charged to a run, and
// BQ weights from its z reach a small exact MMD².
func TestHMC(t *testing.T) {
	g := gaussian(t)
	const size = 800
	pool, grads, err := pools.HMC(particle.Start{}, hmc.Settings{Warmup: 300}).SamplePool(context.Background(), g, size, rand.NewPCG(3, 3))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := pool.Dims()
	if r < size || grads <= 0 {
		t.Fatalf("pool of %d draws for %d evaluations, want ≥ %d draws and a charged cost", r, grads, size)
	}
	for j, m := range g.Mean() {
		var mean float64
		for i := 0; i < r; i++ {
			mean += pool.At(i, j) / float64(r)
		}
		// HMC draws of a Gaussian are close to independent; allow an
		// effective size of r/4.
		if se := math.Sqrt(g.Cov().At(j, j) / float64(r/4)); math.Abs(mean-m) > 4*se {
			t.Errorf("pool mean[%d] = %v, target %v (4 SE = %v)", j, mean, m, 4*se)
		}
	}
	mmdfwRes, err := mmdfw.Run(context.Background(), g, particle.Start{},
		mmdfw.Settings{Inputs: mmdfw.Inputs{PoolSampler: pools.HMC(particle.Start{}, hmc.Settings{Warmup: 300})}, N: 10, Weighting: mmdfw.Weighting{Weights: mmdfw.BQ}, KernelSpec: mmdfw.KernelSpec{Z: mmdfw.ZPool, PoolSize: size}, LMO: mmdfw.LMO{LMOSteps: 20}}, rand.NewPCG(1, 1), nil)
	res, _ := mmdfwRes.Detail.(*mmdfw.Result)
	if err != nil {
		t.Fatal(err)
	}
	if res.PoolGradEvals <= 0 || res.GradEvals <= res.PoolGradEvals {
		t.Errorf("pool evaluations %d, total %d: HMC pool not charged", res.PoolGradEvals, res.GradEvals)
	}
	m := g.RBFEmbedding(res.Bandwidth).MMD2(res.Set.X, res.Set.W)
	t.Logf("exact MMD² after 10 BQ particles with z from the HMC pool: %.3g", m)
	if !(m < 0.02) {
		t.Errorf("BQ from the HMC pool: exact MMD² %v after 10 particles, want < 0.02", m)
	}
}

// TestSGLD: the SGLD pool has 4·⌈size/4⌉ draws at most, a charged cost,
// and the target's mean within a loose multiple of its Monte Carlo error.
func TestSGLD(t *testing.T) {
	g := gaussian(t)
	pool, grads, err := pools.SGLD(4000).SamplePool(context.Background(), g, 400, rand.NewPCG(5, 6))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := pool.Dims()
	if r != 400 || grads <= 0 {
		t.Fatalf("pool of %d draws for %d evaluations, want 400 and a charged cost", r, grads)
	}
	for j, m := range g.Mean() {
		var mean float64
		for i := 0; i < r; i++ {
			mean += pool.At(i, j) / float64(r)
		}
		// Thinned SGLD draws are autocorrelated and biased by the
		// step; allow an effective size of r/20.
		if se := math.Sqrt(g.Cov().At(j, j) / float64(r/20)); math.Abs(mean-m) > 4*se {
			t.Errorf("pool mean[%d] = %v, target %v (4 SE = %v)", j, mean, m, 4*se)
		}
	}
}

// TestSVGD: the SVGD sampler is svgd.Run seeded from two draws of the
// run's stream, with the run's N particles and no diagnostics, and its
// cost that of the last snapshot.
func TestSVGD(t *testing.T) {
	g := gaussian(t)
	s := svgd.Settings{Iterations: 40, StepSize: 0.05, Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}}
	start := particle.Start{X0: []float64{0, 0, 0}}
	got, grads, err := pools.SVGD(start, s).SamplePool(context.Background(), g, 12, rand.NewPCG(7, 8))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	ws := s
	ws.N, ws.NoDiagnostics = 12, true
	var last particle.Snapshot
	want, err := sampler.Set(svgd.Run(context.Background(), g, start, ws, rand.NewPCG(rng.Uint64(), rng.Uint64()),
		particle.RecorderFunc(func(sn particle.Snapshot) error { last = sn; return nil })))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, want.X) || grads != last.GradEvals {
		t.Errorf("pools.SVGD differs from svgd.Run: %d evaluations, want %d", grads, last.GradEvals)
	}
}

// TestFill: Fill gives an explicit ZPool the SGLD pool and every run the
// SGLD local draws, and leaves a ZAuto run without a pool (a PoolSampler
// would make it ZPool) and a caller's samplers alone.
func TestFill(t *testing.T) {
	var auto mmdfw.Inputs
	pools.Fill(mmdfw.Settings{}, &auto)
	if auto.PoolSampler != nil || auto.LocalSampler == nil {
		t.Errorf("ZAuto: pool sampler %v, local sampler %v", auto.PoolSampler, auto.LocalSampler)
	}
	var pool mmdfw.Inputs
	pools.Fill(mmdfw.Settings{KernelSpec: mmdfw.KernelSpec{Z: mmdfw.ZPool}}, &pool)
	if pool.PoolSampler == nil {
		t.Error("ZPool without a pool: no pool sampler")
	}
	drawn := mmdfw.Inputs{Pool: mat.NewDense(2, 1, nil)}
	pools.Fill(mmdfw.Settings{KernelSpec: mmdfw.KernelSpec{Z: mmdfw.ZPool}}, &drawn)
	if drawn.PoolSampler != nil {
		t.Error("ZPool with a pool: a pool sampler too")
	}
	own := pools.HMC(particle.Start{}, hmc.Settings{})
	given := mmdfw.Inputs{PoolSampler: own}
	pools.Fill(mmdfw.Settings{KernelSpec: mmdfw.KernelSpec{Z: mmdfw.ZPool}}, &given)
	if given.PoolSampler == nil {
		t.Error("Fill dropped the caller's pool sampler")
	}
}
