// Command own-method puts a method of one's own beside the built-in ones:
// it registers the method kind "map-ensemble" (Ensemble: N independent MAP
// points from prior draws, equal weights) next to mmdfw and svgd, runs the
// experiment file compare.toml (by default the copy built into the
// program) under a profile, and draws the figures of its results.
//
// From the repository root, after `make data`:
//
//	go run ./examples/own-method                 # quick profile, into ./out
//	go run ./examples/own-method -out /tmp/cmp -profile "" -data /path/to/data   # its base settings
//
// It imports only public packages (pkg/...), as a program in another
// module would.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/repro"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

//go:embed compare.toml
var compareTOML []byte

// newRegistry returns the built-in kinds, datasets and metrics with the
// method kind map-ensemble added: the cell's particle count is its number
// of MAP points. README.md shows the body.
func newRegistry() *repro.Registry {
	reg := repro.NewRegistry() // mmdfw, svgd, sgld, sp, hmc; the datasets and metrics of experiments/
	repro.RegisterSampler(reg, "map-ensemble", "1", func(in repro.Input[Ensemble]) sampler.Sampler {
		e := in.Settings // the file's settings table, then the profile's, decoded strictly
		e.N = in.N       // the cell's particle count
		return e
	})
	return reg
}

// options are the program's flags.
type options struct {
	config  string // experiment file; "" writes and uses the built-in compare.toml
	profile string
	dataDir string
	out     string
	jobs    int
}

func main() {
	var o options
	flag.StringVar(&o.config, "config", "", "experiment file to run (default: the built-in compare.toml, written into -out)")
	flag.StringVar(&o.profile, "profile", "quick", "profile of the experiment file: quick, or \"\" for its base settings (it has no other)")
	flag.StringVar(&o.dataDir, "data", "data", "data folder (as `make data` creates it)")
	flag.StringVar(&o.out, "out", "out", "folder of the results and figures")
	flag.IntVar(&o.jobs, "j", 0, "cells run at once (default: the number of CPUs)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "own-method:", err)
		os.Exit(1)
	}
}

// run registers the method, runs the experiment file of o into
// o.out/results and draws its figures into o.out/figures, saying on w what
// it wrote.
func run(ctx context.Context, o options, w io.Writer) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if o.config == "" {
		o.config = filepath.Join(o.out, "compare.toml")
		if err := atomicfile.Write(o.config, compareTOML, 0o644); err != nil {
			return err
		}
	}
	reg := newRegistry()
	files := []string{o.config}
	cells, err := repro.Load(reg, files, o.profile)
	if err != nil {
		return err
	}
	if miss := repro.MissingData(o.dataDir, cells); len(miss) > 0 {
		return fmt.Errorf("data folder %s lacks %s: run `make data` in the repository, or give the folder with -data",
			o.dataDir, strings.Join(miss, ", "))
	}
	results, figures := filepath.Join(o.out, "results"), filepath.Join(o.out, "figures")
	sum, err := repro.NewRunner(reg, repro.Options{Results: results, DataDir: o.dataDir, Jobs: o.jobs}).Run(ctx, cells)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, sum)
	if err := errors.Join(sum.Err(), ctx.Err()); err != nil {
		return err
	}
	figs, err := repro.Plot(reg, files, o.profile, results, figures)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "results in %s\n", results)
	for _, f := range figs {
		fmt.Fprintln(w, f)
	}
	return nil
}
