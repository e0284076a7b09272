package repro

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func init() {
	register(&command{
		name:    "plot",
		summary: "draw every figure and Table 1 from cached results (never computes)",
		run:     plotCmd,
	})
}

// defaultExperiments are the experiment files plot and report read when
// none is named.
const defaultExperiments = "experiments/*.toml"

// resultsCmd holds what plot and report share: the results and figures
// directories, and the experiment files and profile that say which cached
// results are current. The data checksums of a key are those each result
// records (Options.RecordedData), so no data folder is needed.
type resultsCmd struct {
	e           *cli
	reg         *Registry
	fs          *flag.FlagSet
	results     *string
	figures     *string
	experiments *string
	profile     *string
	sets        repeated
}

func newResultsCmd(e *cli, name string, usage ...string) *resultsCmd {
	c := &resultsCmd{e: e, reg: e.reg, fs: newFlagSet(e.stderr, name, usage...)}
	c.results = c.fs.String("results", "results", "results directory")
	c.figures = c.fs.String("figures", "figures", "directory of the figures")
	c.experiments = c.fs.String("experiments", defaultExperiments, "glob of the experiment files, when no FILE is named")
	c.profile = c.fs.String("profile", "", "profile to plan every experiment under: quick or full (default: the profile each result records)")
	addPosteriorDBFlag(c.fs)
	c.fs.Var(&c.sets, "set", "override KEY=VALUE of the experiment files after the profile, as given to repro run (repeatable)")
	return c
}

// experimentFiles returns the files named, or else those glob matches.
func experimentFiles(named []string, glob string) ([]string, error) {
	if len(named) > 0 {
		return named, nil
	}
	files, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("--experiments %q: %w", glob, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("--experiments %q: no experiment file matches", glob)
	}
	return files, nil
}

// load parses args and reads the current results: those whose cells the
// experiment files plan now, under their current cache keys. It says on
// stderr how many result files it left out.
func (c *resultsCmd) load(args []string) (*Results, error) {
	named, err := parseInterleaved(c.fs, args)
	if err != nil {
		return nil, err
	}
	files, err := experimentFiles(named, *c.experiments)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(*c.results); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("results directory %s does not exist or is not a directory (--results)", *c.results)
	}
	if err := checkProfile(*c.profile); err != nil {
		return nil, err
	}
	res, err := LoadResults(c.reg, files, *c.profile, *c.results, c.sets...)
	if err != nil {
		return nil, err
	}
	var ds []string
	for _, cl := range res.Cells {
		ds = append(ds, cl.Prov.Dataset)
	}
	sayUnchecked(c.e.stderr, ds)
	if n := len(res.Apart); n > 0 {
		folders := map[string]bool{}
		var fs []string
		for _, a := range res.Apart {
			if !folders[a.Reason] {
				folders[a.Reason] = true
				fs = append(fs, a.Reason)
			}
		}
		fmt.Fprintf(c.e.stderr, "%d result files of runs with --set kept apart under %s (%s): give the same --set to read them\n", n, *c.results, strings.Join(fs, ", "))
	}
	if n := len(res.Ignored); n > 0 {
		fmt.Fprintf(c.e.stderr, "%d stale or orphaned result files under %s ignored (listed in the report's deviations)\n", n, *c.results)
		if len(res.Cells) == 0 {
			fmt.Fprintln(c.e.stderr, "no result is current: check --profile and the experiment files")
		}
	}
	return res, nil
}

func plotCmd(e *cli, args []string) error {
	c := newResultsCmd(e, "plot",
		"usage: repro plot [FILE...] [--experiments GLOB] [--profile quick|full] [--set KEY=VALUE]... [--posteriordb DIR] [--results DIR] [--figures DIR]",
		"\nDraws the figures of every experiment of the files (default "+defaultExperiments+") as",
		"PNG, SVG and PDF, and Table 1 as Markdown and CSV, from the cached results only:",
		"cells that have not run are absent from the figures, and results whose cell the",
		"files no longer plan, or whose cache key is not the cell's current one (made",
		"under other settings, data or code versions), are ignored. The data itself is",
		"not needed: each result's recorded data checksums enter its key.")
	res, err := c.load(args)
	if err != nil {
		return err
	}
	if len(res.Cells) == 0 {
		return fmt.Errorf("no current results under %s: run 'repro run' first", *c.results)
	}
	files, err := PlotResults(res, *c.figures)
	for _, f := range files {
		fmt.Fprintln(e.stdout, f)
	}
	// An experiment without [[figures]] is drawn with the defaults, and
	// said so: never silently skipped.
	for _, id := range UndeclaredFigures(res) {
		fmt.Fprintf(e.stderr, "experiment %s declares no [[figures]]: drew the default figures (each recorded metric against compute time): %s\n",
			id, strings.Join(FigureNames(res, id), ", "))
	}
	return err
}
