package experiment

import (
	"github.com/mmdfw/mmdfw/pkg/harness"
)

// The memory estimates of the method kinds (harness.SetMemoryEstimate):
// orders of magnitude of what one cell must hold, floors rather than
// bounds, so that they refuse only cells that cannot fit. The dataset is
// not read when a file is loaded, so the dimension d is taken as 1;
// every term is 8 bytes per float64.
//
//	mmdfw:  the N×N Gram of the weight solve, 8·N², and the N×d particles
//	        and their directions, 16·N·d; one recorded row per particle
//	svgd:   the N×N kernel, 8·N², and the N×d particles, scores, update
//	        and AdaGrad history, 32·N·d; one recorded row per evaluated
//	        iteration
//	sp:     the N×d points and their scores, 16·N·d
//	sgld:   the N×d chains, their gradients and noise, 24·N·d; one
//	        recorded row per evaluated iteration
//	hmc:    the N kept draws (chains × draws) pooled and copied into the
//	        result, 16·N·d, and their weights, 8·N
//	start:  the N×d points, 8·N·d

// memEstimate returns the estimate of quadratic and linear terms in N and
// of the recorded rows, keyed by the larger of the N terms and the rows.
func memEstimate(n, quad, lin, rows float64, iterKey string, iters int, what string) harness.Memory {
	byN := quad*n*n + lin*n
	if rows > byN && iterKey != "" {
		return harness.Memory{Bytes: byN + rows, Key: "settings." + iterKey, Value: iters, What: what}
	}
	return harness.Memory{Bytes: byN + rows, Key: "particles", What: what}
}

func registerMemory(r *harness.Registry) {
	harness.SetMemoryEstimate(r, KindMMDFW, func(f harness.Footprint[MMDFWConfig]) harness.Memory {
		d := float64(f.Dim)
		return memEstimate(float64(f.N), 8, 16*d, f.RecordedBytes(f.N), "", 0,
			"mmdfw: the N×N Gram, 8·N² bytes, and N×d particles and directions")
	})
	svgdMem := func(n, dim int, iters int, rows float64) harness.Memory {
		return memEstimate(float64(n), 8, 32*float64(dim), rows, "iterations", iters,
			"svgd: the N×N kernel, 8·N² bytes, N×d particles, scores and updates, and a recorded row per evaluated iteration")
	}
	harness.SetMemoryEstimate(r, KindSVGD, func(f harness.Footprint[SVGDConfig]) harness.Memory {
		return svgdMem(f.N, f.Dim, f.Settings.Iterations, f.RecordedBytes(f.Settings.Iterations))
	})
	harness.SetMemoryEstimate(r, KindSVGDAnchor, func(f harness.Footprint[SVGDAnchorConfig]) harness.Memory {
		return svgdMem(f.N, f.Dim, f.Settings.Iterations, f.RecordedBytes(f.Settings.Iterations))
	})
	harness.SetMemoryEstimate(r, KindSP, func(f harness.Footprint[SPConfig]) harness.Memory {
		return memEstimate(float64(f.N), 0, 16*float64(f.Dim), f.RecordedBytes(f.N), "", 0,
			"sp: N×d points and scores")
	})
	harness.SetMemoryEstimate(r, KindSGLD, func(f harness.Footprint[SGLDConfig]) harness.Memory {
		return memEstimate(float64(f.N), 0, 24*float64(f.Dim), f.RecordedBytes(f.Settings.Iterations), "iterations", f.Settings.Iterations,
			"sgld: N×d chains, gradients and noise, and a recorded row per evaluated iteration")
	})
	harness.SetMemoryEstimate(r, KindHMC, func(f harness.Footprint[HMCConfig]) harness.Memory {
		return memEstimate(float64(f.N), 0, 16*float64(f.Dim)+8, 0, "", 0,
			"hmc: N = chains × draws kept draws of d values, pooled and copied into the result, and their weights")
	})
	harness.SetMemoryEstimate(r, KindStart, func(f harness.Footprint[StartConfig]) harness.Memory {
		return memEstimate(float64(f.N), 0, 8*float64(f.Dim), 0, "", 0, "start: N×d points")
	})
}

// registerSteps gives the progress lines the step counts known before a
// run: one step per particle for MMD-FW and Stein Points, the iterations
// for SVGD and SGLD when the file sets them (their defaults may be
// ceilings of a stopping rule).
func registerSteps(r *harness.Registry) {
	perParticle := func(n int) int { return n }
	harness.SetStepCount(r, KindMMDFW, func(f harness.Footprint[MMDFWConfig]) int { return perParticle(f.N) })
	harness.SetStepCount(r, KindSP, func(f harness.Footprint[SPConfig]) int { return perParticle(f.N) })
	harness.SetStepCount(r, KindSVGD, func(f harness.Footprint[SVGDConfig]) int { return f.Settings.Iterations })
	harness.SetStepCount(r, KindSVGDAnchor, func(f harness.Footprint[SVGDAnchorConfig]) int { return f.Settings.Iterations })
	harness.SetStepCount(r, KindSGLD, func(f harness.Footprint[SGLDConfig]) int { return f.Settings.Iterations })
}
