package hmc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// A reference sample of N((1, −2), diag(1, 4)), with its diagnostics.
func ExampleRun() {
	t := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0] = -(x[0] - 1)
		grad[1] = -(x[1] + 2) / 4
		return -0.5*(x[0]-1)*(x[0]-1) - (x[1]+2)*(x[1]+2)/8
	}}
	hmcRes, err := hmc.Run(context.Background(), t, particle.Start{}, hmc.Settings{}, rand.NewPCG(1, 2), nil)
	res, _ := hmcRes.Detail.(*hmc.Result)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := res.Set.Mean(nil)
	fmt.Printf("draws: %d\n", res.Set.Len())
	fmt.Printf("mean: (%.1f, %.1f)\n", m[0], m[1])
	im := res.Diagnostics[0].InvMass
	fmt.Printf("inverse mass of chain 0 within 25%% of (1, 4): %v\n", math.Abs(im[0]-1) < 0.25 && math.Abs(im[1]-4) < 1)
	fmt.Printf("R̂ < 1.01: %v, ESS > 400: %v, flagged: %v\n", res.MaxRhat < 1.01, res.MinESS > 400, res.Flagged)
	// Output:
	// draws: 4000
	// mean: (1.0, -2.0)
	// inverse mass of chain 0 within 25% of (1, 4): true
	// R̂ < 1.01: true, ESS > 400: true, flagged: false
}

// A run interrupted during warm-up continues from its checkpoint to the
// draws of an uninterrupted run.
func ExampleCheckpoint() {
	t := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0], grad[1] = -x[0], -x[1]
		return -0.5 * (x[0]*x[0] + x[1]*x[1])
	}}
	dir, err := os.MkdirTemp("", "hmc-checkpoint")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	s := hmc.Settings{Chains: 2, Warmup: 200, DrawsPerChain: 200}
	hmcRes, err := hmc.Run(context.Background(), t, particle.Start{}, s, rand.NewPCG(1, 2), nil)
	whole, _ := hmcRes.Detail.(*hmc.Result)
	if err != nil {
		fmt.Println(err)
		return
	}

	s.Checkpoint = &hmc.Checkpoint{Path: filepath.Join(dir, "ref.ckpt"), Every: 50}
	ctx, cancel := context.WithCancel(context.Background())
	s.Progress = func(p hmc.ChainProgress) {
		if p.Phase == hmc.PhaseWarmup && p.Iteration == 120 {
			cancel() // as Ctrl-C would
		}
	}
	_, err = hmc.Run(ctx, t, particle.Start{}, s, rand.NewPCG(1, 2), nil)

	fmt.Println("first run:", err)
	s.Progress = nil
	hmcRes, err = hmc.Run(context.Background(), t, particle.Start{}, s, rand.NewPCG(1, 2), nil)
	resumed, _ := hmcRes.Detail.(*hmc.Result)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("same draws:", mat.Equal(whole.Set.X, resumed.Set.X))
	// Output:
	// first run: context canceled
	// same draws: true
}

// NoWarmup samples at once with StepSize and a unit mass matrix; any other
// negative warm-up is refused, naming the field.
func ExampleSettings_Validate() {
	fmt.Println(hmc.Settings{Warmup: hmc.NoWarmup, Jitter: hmc.NoJitter, StepSize: 0.2}.Validate())
	fmt.Println(hmc.Settings{Warmup: -10}.Validate())
	// Output:
	// <nil>
	// warmup = -10: must not be negative (NoWarmup, -1, means no warm-up)
}

// The init and the step: the chains of N(0, I) advanced one transition at
// a time through warm-up into sampling, the draws read from the state.
func ExampleStep() {
	t := target.Func{D: 2, F: func(x, grad []float64) float64 {
		grad[0], grad[1] = -x[0], -x[1]
		return -0.5 * (x[0]*x[0] + x[1]*x[1])
	}}
	ctx := context.Background()
	st, err := hmc.Init(ctx, t, particle.Start{}, hmc.Settings{Chains: 2, Warmup: 200, DrawsPerChain: 500}, rand.NewPCG(1, 2))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	for st.Iteration < st.Warmup+st.DrawsPerChain {
		if st.Iteration == st.Warmup {
			fmt.Printf("after %d iterations: %v\n", st.Iteration, st.Phase)
		}
		if err := hmc.Step(ctx, st); err != nil {
			fmt.Println(err)
			return
		}
	}
	res, err := st.Detail()
	if err != nil {
		fmt.Println(err)
		return
	}
	m := res.Set.Mean(nil)
	fmt.Printf("draws: %d, mean within 0.2 of 0: %v\n", res.Set.Len(), math.Abs(m[0]) < 0.2 && math.Abs(m[1]) < 0.2)
	fmt.Printf("gradient evaluations counted: %v\n", res.GradEvals == st.GradEvals && st.GradEvals > 0)
	// Output:
	// after 200 iterations: sampling
	// draws: 1000, mean within 0.2 of 0: true
	// gradient evaluations counted: true
}

// A chain's nominal path is the integration time over its step size; at or
// beyond Settings.MaxSteps (1024 by default) its trajectories are truncated
// and the run is flagged "capped".
func ExampleSettings_PathCapped() {
	var s hmc.Settings // integration time 2π, max_steps 1024
	for _, eps := range []float64{0.5, 0.01, 1e-4} {
		fmt.Printf("ε = %g: %.0f steps, capped %v\n", eps, s.NominalSteps(eps), s.PathCapped(eps))
	}
	// Output:
	// ε = 0.5: 13 steps, capped false
	// ε = 0.01: 628 steps, capped false
	// ε = 0.0001: 62832 steps, capped true
}
