//go:build repro_toy

package main

import (
	"github.com/mmdfw/mmdfw/internal/harness"
	"github.com/mmdfw/mmdfw/internal/slurm/toy"
)

// Built with -tags repro_toy (by scripts/test-slurm.sh), repro knows the
// toy kinds of internal/slurm/toy, whose cells take milliseconds.
func init() { toy.Register(harness.Default) }
