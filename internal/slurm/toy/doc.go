// Package toy registers a cheap method, dataset and metric with a harness
// registry, for the end-to-end tests of the batch-system path, which need
// cells that finish in milliseconds but use every part of the harness: a
// shared artefact in the loader (as a MAP point), a reference sample and a
// metric against it.
//
// The toy's posterior for split s is the 2-dimensional Gaussian N(s·1, I).
// The "toywalk" method moves N particles by noisy gradient steps
//
//	xᵢ ← xᵢ + η ∇log p(xᵢ) + σ ξ,  ξ ~ N(0, I),
//
// the "toyref" reference kind is the same walk, and the "toymean" metric is
// the distance between the particles' weighted mean and the reference's.
// When the environment variable LogEnv names a file, each computation of a
// shared artefact appends one line to it ("map s1 job 17" or "reference
// s1 job 17", the job from SLURM_JOB_ID), so that a test can count them.
package toy
