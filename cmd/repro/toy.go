//go:build repro_toy

package main

import (
	"github.com/mmdfw/mmdfw/internal/slurm/toy"
	"github.com/mmdfw/mmdfw/pkg/repro"
)

// Built with -tags repro_toy (by scripts/test-slurm.sh), repro knows the
// toy kinds of internal/slurm/toy, whose cells take milliseconds.
func registerToy(r *repro.Registry) { toy.Register(r) }
