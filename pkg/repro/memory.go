package repro

import "github.com/mmdfw/mmdfw/pkg/harness"

// Footprint is what a method kind's memory estimate sees of one cell: its
// settings, particle count, a floor on the dimension, the experiment's
// evaluation schedule and budget.
type Footprint[S any] = harness.Footprint[S]

// Memory is a memory estimate of one cell, with the key of the method's
// table that drives it.
type Memory = harness.Memory

// SetMemoryEstimate gives the method kind name of r an estimate of the
// memory one cell needs: a run whose cell needs more than the machine has
// (Options.Memory, $MMDFW_MEMORY, else /proc/meminfo) stops before any
// cell runs, the error naming the file, line and key. A kind without one
// is not checked.
func SetMemoryEstimate[S any](r *Registry, name string, f func(Footprint[S]) Memory) {
	harness.SetMemoryEstimate(r, name, f)
}

// NoMemoryCheck as Options.Memory turns the memory check off.
const NoMemoryCheck = harness.NoMemoryCheck

// MemoryEnv is the environment variable that sets the memory a run
// checks its cells against (64GiB, 500G; off for none).
const MemoryEnv = harness.MemoryEnv

// ParseBytes reads a size in bytes with an optional unit (k, M, G, T or
// KiB, MiB, GiB, TiB); "off" is 0.
func ParseBytes(s string) (uint64, error) { return harness.ParseBytes(s) }

// SetStepCount gives the method kind name of r the number of snapshot
// steps one cell takes (its iterations, one per particle), for the
// progress lines a run logs every 10 seconds; 0 when not known before the
// run.
func SetStepCount[S any](r *Registry, name string, f func(Footprint[S]) int) {
	harness.SetStepCount(r, name, f)
}
