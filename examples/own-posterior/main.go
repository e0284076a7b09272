// Command own-posterior is the repro command with a posteriordb model of
// its own: it registers the model normal_invgamma (model.go, written with
// pkg/constrain: its log density and exact gradient) on the built-in
// registry and hands the command line to repro.Main, so that run, status,
// plot, report, pdb, list, clean and slurm know the model, and the
// posterior of the folder posteriordb/ (posteriordb's staged layout) runs
// instead of being skipped as "model not available".
//
// From the repository root:
//
//	go run ./examples/own-posterior pdb list --posteriordb examples/own-posterior/posteriordb
//	go run ./examples/own-posterior run examples/own-posterior/own-posterior.toml \
//		--posteriordb examples/own-posterior/posteriordb --results /tmp/own/results
//	go run ./examples/own-posterior report examples/own-posterior/own-posterior.toml \
//		--posteriordb examples/own-posterior/posteriordb --results /tmp/own/results \
//		--figures /tmp/own/figures --out /tmp/own/REPORT.md
//
// The folder posteriordb/ is written by gen/ (go run ./examples/own-posterior/gen).
// It imports only public packages (pkg/...), as a program in another
// module would.
package main

import (
	"context"
	"os"

	"github.com/mmdfw/mmdfw/pkg/repro"
)

// newRegistry returns the built-in method kinds, datasets and metrics with
// the posteriordb model normal_invgamma added.
func newRegistry() *repro.Registry {
	reg := repro.NewRegistry()
	repro.RegisterPosteriorModel(reg, ModelName, "1", NormalInvGamma)
	return reg
}

func main() {
	os.Exit(repro.Main(context.Background(), newRegistry(), os.Args[1:], os.Stdout, os.Stderr))
}
