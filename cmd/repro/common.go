package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/mmdfw/mmdfw/internal/experiment"
	"github.com/mmdfw/mmdfw/internal/harness"
)

// newFlagSet returns the flag set of a command whose -h prints the lines of
// usage and then the flags with their defaults.
func newFlagSet(name string, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(fs.Output(), l)
		}
		fs.PrintDefaults()
	}
	return fs
}

// parseNoArgs parses the flags of a command that takes no positional
// argument; given one, it prints the usage.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	return nil
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, which it returns.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// loadCells reads the experiment files under profile and lists their cells.
func loadCells(files []string, profile string) ([]*harness.Cell, error) {
	return loadCellsSet(files, profile, nil)
}

// loadCellsSet is loadCells with the overrides sets (KEY=VALUE, applied to
// every file after the profile).
func loadCellsSet(files []string, profile string, sets []string) ([]*harness.Cell, error) {
	var exps []*harness.Experiment
	for _, f := range files {
		e, err := harness.LoadFileSet(harness.Default, f, profile, sets)
		if err != nil {
			return nil, err
		}
		exps = append(exps, e)
	}
	return harness.Plan(exps), nil
}

// cellSpec describes a command over the cells of experiment files: its
// name, its usage lines and the help of the flags it shares with the others.
// An empty help takes the common one; an empty jobs help means no -j flag.
type cellSpec struct {
	name    string
	usage   []string
	profile string // help of --profile
	results string // help of --results
	jobs    string // help of -j, whose default is runtime.NumCPU()
	// noKeyRevision leaves --key-revision out.
	noKeyRevision bool
}

// cellCmd holds what the commands over the cells of experiment files (run,
// list, prepare, status, slurm) share: the flag set with --profile,
// --results, --data-dir, optionally -j and --key-revision, and the loading of the files
// named as arguments.
type cellCmd struct {
	fs      *flag.FlagSet
	profile *string
	results *string
	dataDir *string
	jobs    int
	keyRev  bool
	sets    repeated
}

func newCellCmd(s cellSpec) *cellCmd {
	if s.profile == "" {
		s.profile = "profile to apply: quick or full"
	}
	if s.results == "" {
		s.results = "results directory"
	}
	c := &cellCmd{fs: newFlagSet(s.name, s.usage...)}
	c.profile = c.fs.String("profile", "", s.profile)
	if s.jobs != "" {
		c.fs.IntVar(&c.jobs, "j", runtime.NumCPU(), s.jobs)
	}
	c.results = c.fs.String("results", "results", s.results)
	c.dataDir = c.fs.String("data-dir", experiment.DataDir(),
		"data folder the experiments read (also $"+experiment.DataEnv+")")
	c.fs.Var(&c.sets, "set", "override KEY=VALUE of the experiment files after the profile, in TOML (methods.svgd.settings.step=0.01, splits=[0,1]; repeatable)")
	if !s.noKeyRevision {
		c.fs.BoolVar(&c.keyRev, "key-revision", false, "make the VCS revision part of every cache key")
	}
	return c
}

// parse parses args, whose flags may stand among the files it returns; with
// no file it prints the usage.
func (c *cellCmd) parse(args []string) ([]string, error) {
	files, err := parseInterleaved(c.fs, args)
	if err != nil {
		return nil, err
	}
	// The wiring reads the data folder from the environment, which also
	// carries it to the jobs that `repro slurm --submit` starts.
	if err := os.Setenv(experiment.DataEnv, *c.dataDir); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		c.fs.Usage()
		return nil, errUsage
	}
	return files, nil
}

// load parses args and lists the cells of the files they name.
func (c *cellCmd) load(args []string) ([]*harness.Cell, error) {
	files, err := c.parse(args)
	if err != nil {
		return nil, err
	}
	return loadCellsSet(files, *c.profile, c.sets)
}

// runner returns the runner over the results directory with the command's
// -j and --key-revision and the further options of opt.
func (c *cellCmd) runner(opt harness.Options) *harness.Runner {
	opt.Results, opt.Jobs, opt.KeyRevision = *c.results, c.jobs, c.keyRev
	return harness.NewRunner(harness.Default, opt)
}
