// Command repro regenerates the figures and tables of "Bayesian posterior
// approximation via greedy particle optimization" (Futami et al., AAAI 2019)
// and manages the datasets and results they are made from.
//
// Usage:
//
//	repro <command> [flags] [args]
//
// Run "repro help" for the list of commands and "repro <command> -h" for the
// flags of one. The commands are pkg/repro's Main: a program of one's own
// that calls it with a registry of its own is the same command with its own
// models, methods and metrics.
package main

import (
	"context"
	"os"

	"github.com/mmdfw/mmdfw/pkg/repro"
)

func main() {
	os.Exit(repro.Main(context.Background(), newRegistry(), os.Args[1:], os.Stdout, os.Stderr))
}

// newRegistry returns the registry of the command: pkg/repro's, with the
// built-in kinds, datasets and metrics (and, built with -tags repro_toy,
// the toy kinds).
func newRegistry() *repro.Registry {
	r := repro.NewRegistry()
	registerToy(r)
	return r
}
