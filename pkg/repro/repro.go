// Package repro is the reproduction harness as a program of one's own sees
// it: the registry of method kinds, datasets and metrics with the built-in
// ones (mmdfw, svgd, sgld, sp, hmc; the UCI regression sets, covertype and
// the other datasets of pkg/data; accuracy, test_ll, rmse, mmd2, …), the
// registration of a new method kind, the loading and running of experiment
// files into a results directory under a profile, and the figures and the
// report drawn from those results.
//
// A method of one's own is a sampler.Sampler (its settings a struct with
// TOML/JSON tags, whose zero value is its defaults, and a Validate method
// returning a *setting.Error), checked by pkg/sampler/samplertest. One call
// registers it next to the built-in kinds:
//
//	reg := repro.NewRegistry()
//	repro.RegisterSampler(reg, "mine", "1", func(in repro.Input[mine.Settings]) sampler.Sampler {
//		s := in.Settings
//		s.N = in.N
//		return s
//	})
//
// after which an experiment file may name kind = "mine" with a settings
// table decoded strictly into mine.Settings, as the built-in kinds' are:
// unknown keys and values that Validate refuses are errors naming the file,
// line and key. The cells run, are cached and are judged current or stale
// exactly as those of the repro command; bump the version string whenever
// the method's numbers change, and only its cells are recomputed.
//
// A posteriordb model of one's own (the model_name of a posterior's JSON,
// written with pkg/constrain) registers the same way, on the same
// registry:
//
//	repro.RegisterPosteriorModel(reg, "normal_invgamma", "1", NormalInvGamma)
//
// after which the posteriordb.<posterior> datasets of its posteriors run
// instead of being skipped as "model not available".
//
// # The command line
//
// Main is the whole repro command (run, list, status, clean, plot,
// report, reference, prepare, slurm, data, pdb, version) as a call on a
// registry, so that a program of one's own is the command with its own
// models, methods and metrics:
//
//	func main() {
//		reg := repro.NewRegistry()
//		repro.RegisterPosteriorModel(reg, "normal_invgamma", "1", NormalInvGamma)
//		os.Exit(repro.Main(context.Background(), reg, os.Args[1:], os.Stdout, os.Stderr))
//	}
//
// (examples/own-posterior). cmd/repro is that call on NewRegistry().
//
// This package is the harness's one door: the commands go through the
// same calls a program of one's own makes (NewRegistry, Load, Select,
// NewRunner and Runner.Run or Runner.Status, LoadResults, PlotResults,
// WriteResultsReport). There is no global
// registry: every NewRegistry is a registry of its own, filled explicitly,
// and importing a package registers nothing. A Runner keeps no state of a
// run, so one Runner may serve several calls of Run at once.
//
// The types below are aliases of the harness's own, so that one concept
// has one shape whether it is reached from here or from the harness.
package repro

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/experiment"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/paper"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

// Registry holds what experiment files may name: method kinds, datasets and
// metrics.
type Registry = harness.Registry

// Problem is what a dataset hands to the methods and metrics of one cell:
// the posterior (Target) and what the metrics need (Model).
type Problem = harness.Problem

// Model is what a problem holds beside its posterior; its Describe gives
// the dataset's entries of every provenance summary. The built-in
// datasets' models are those of the built-in metrics and kinds.
type Model = harness.Model

// Dataset describes a dataset an experiment file may name: its loader and
// the checksums of its files, which enter the cells' cache keys.
type Dataset = harness.Dataset

// Metric evaluates one snapshot of a method's particles.
type Metric = harness.Metric

// MetricFactory prepares a Metric for one cell.
type MetricFactory = harness.MetricFactory

// MetricMeaning is what a metric's values mean: its label in words, the
// direction it improves in, whether it is drawn on a log axis and what it
// reads. Registry.DescribeMetric records it beside the metric; the figures
// and the report label, rank and draw the metric by it.
type MetricMeaning = harness.MetricMeaning

// KindTraits is what the report reads of a method kind: its place in
// legends, whether each step adds one particle, what its recorded settings
// say of its series, and how its flags are counted.
// Registry.DescribeKind records them beside the kind; the report names no
// method and orders, draws and flags the kind's cells by them.
type KindTraits = harness.KindTraits

// SeriesTraits is what a cell's recorded settings say of its series in a
// figure (KindTraits.Series).
type SeriesTraits = harness.SeriesTraits

// RunCheck is a check that methods evaluate at run time and that only
// raises a flag: Registry.DescribeCheck records it, and the report says
// on how many cells of its kinds it was evaluated.
type RunCheck = harness.RunCheck

// Direction says which way a metric improves.
type Direction = harness.Direction

// Directions of a metric, and what it reads (MetricMeaning.Reads).
const (
	HigherBetter     = harness.HigherBetter
	LowerBetter      = harness.LowerBetter
	NearerBetter     = harness.NearerBetter
	ReadsEvaluation  = harness.ReadsEvaluation
	ReadsDevelopment = harness.ReadsDevelopment
	ReadsReference   = harness.ReadsReference
	ReadsTarget      = harness.ReadsTarget
	ReadsMethod      = harness.ReadsMethod
)

// Env gives a dataset loader, metric factory or method the cell it serves,
// its thread budget, the shared artefacts of the run and the experiment's
// reference sample.
type Env = harness.Env

// Input is what a method receives for one cell: the cell, its problem, the
// decoded settings S (the file's, then the profile's), the particle count
// N (0 when the file gives none), the thread budget, the cell's
// rand.Source (derived from its id) and the recorder of its snapshots.
type Input[S any] = harness.Input[S]

// Output is what a method returns: its final particle set and a summary
// written into the cell's provenance file as JSON.
type Output = harness.Output

// FieldError names the settings key at fault, so that the decoder reports
// its line.
type FieldError = harness.FieldError

// Experiment is one experiment file resolved under a profile.
type Experiment = harness.Experiment

// Cell is one unit of work and of caching: one method, dataset, split and
// particle count of an experiment.
type Cell = harness.Cell

// Options configure a Runner: the results directory, the data folder the
// datasets read (DataDir), the cells run at once, forced recomputation,
// progress output.
type Options = harness.Options

// Runner runs cells, caches their results and shares artefacts (MAP
// points, references) between them, also across processes.
type Runner = harness.Runner

// Summary counts the cells a Runner.Run computed, found cached, failed or
// skipped, and where the time went.
type Summary = harness.Summary

// ErrDataMissing marks a dataset whose files are absent; its cells end as
// skipped, not failed.
var ErrDataMissing = harness.ErrDataMissing

// Profiles are the profile names an experiment file may define.
var Profiles = harness.Profiles

// NewRegistry returns a new registry holding the built-in method kinds,
// datasets and metrics, the same ones the repro command knows. Kinds
// registered on it do not reach any other registry.
func NewRegistry() *Registry {
	r := harness.NewRegistry()
	experiment.Register(r)
	return r
}

// RegisterMethod adds the method kind name to r. S is its settings struct:
// an experiment file's settings table of the method is decoded strictly
// into a zero S (so the zero S is the method's defaults), after which S's
// Validate method, when it has one, checks the ranges; a *setting.Error or
// *FieldError it returns is reported at the line of its key. version
// enters the cache key of the method's cells. A duplicate name, or an S
// that is not a struct, panics.
func RegisterMethod[S any](r *Registry, name, version string, run func(ctx context.Context, in Input[S]) (Output, error)) {
	harness.RegisterMethod(r, name, version, run)
}

// RegisterSampler adds the method kind name to r whose cells run the
// sampler that build makes from the cell's input on the cell's posterior,
// with the cell's random source and recorder:
//
//	set, err := build(in).Run(ctx, in.Problem.Target, particle.Start{}, in.Src, in.Recorder)
//
// (the zero particle.Start: the method's default start). build sets what
// the cell decides (typically the particle count in.N and
// the worker count in.Threads) on the decoded settings. The rest is as in
// RegisterMethod.
func RegisterSampler[S any](r *Registry, name, version string, build func(in Input[S]) sampler.Sampler) {
	harness.RegisterMethod(r, name, version, func(ctx context.Context, in Input[S]) (Output, error) {
		s := build(in)
		if s == nil {
			return Output{}, fmt.Errorf("repro: method %s built no sampler", name)
		}
		set, err := s.Run(ctx, in.Problem.Target, particle.Start{}, in.Src, in.Recorder)
		return Output{Set: set, Summary: ProblemSummary(in.Problem)}, err
	})
}

// ProblemSummary returns what the built-in kinds write into every
// provenance summary about the dataset of problem p, its Model's Describe:
// for a built-in dataset its label ("dataset_label", which the figures and
// the report print) and whether it is a prefix of the published data
// ("dataset_subset"). It is nil for a problem without a Model. A method
// registered with RegisterMethod may return it, with entries of its own, as
// its Output.Summary; RegisterSampler's kinds do.
func ProblemSummary(p *Problem) map[string]any {
	if p.Model == nil {
		return nil
	}
	return p.Model.Describe()
}

// DefaultDataDir is the data folder of the built-in datasets when
// Options.DataDir is empty, as `make data` creates it.
const DefaultDataDir = harness.DefaultDataDir

// Load reads the experiment files under profile ("" for their base
// settings, or one of Profiles), applies the overrides sets (KEY=VALUE in
// TOML, after the profile) and lists their cells, numbered in order. An
// error names the file, line and key at fault; two files with the same
// experiment id are an error naming both.
func Load(r *Registry, files []string, profile string, sets ...string) ([]*Cell, error) {
	return harness.LoadFiles(r, files, profile, sets)
}

// MissingData returns, sorted, the datasets of pkg/data that cells read
// and that are missing or incomplete in the folder dir (empty when all are
// present). Datasets that are not of pkg/data (those an experiment file
// declares itself, the Gaussian targets) are not looked for.
func MissingData(dir string, cells []*Cell) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cells {
		d, ok := data.Lookup(c.Dataset)
		if !ok || seen[c.Dataset] {
			continue
		}
		seen[c.Dataset] = true
		if st := d.Status(dir); st.State == data.StateMissing || st.State == data.StateCorrupt {
			out = append(out, c.Dataset)
		}
	}
	sort.Strings(out)
	return out
}

// NewRunner returns a runner of the cells of r's experiments over the
// results directory opts.Results ("results" when empty). Its cells are
// cached under <results>/<profile>/.
func NewRunner(r *Registry, opts Options) *Runner { return harness.NewRunner(r, opts) }

// Results are the current results of experiment files under a results
// directory, as LoadResults reads them: the cells whose result matches
// their current cache key, the result files left out and why, the cells not
// run yet, and the figures the files declare.
type Results = report.Results

// LoadResults reads the current results under the directory results:
// those of the cells the experiment files plan now under profile (""
// takes the profile each result records) with their current cache keys,
// the data checksums of a key being those each result records (so no data
// folder is needed), and the overrides sets (KEY=VALUE) applied after the
// profile as the run that made them applied them (Load). The others are
// listed in Results.Ignored. It never computes a result.
func LoadResults(r *Registry, files []string, profile, results string, sets ...string) (*Results, error) {
	if fi, err := os.Stat(results); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("repro: results directory %s does not exist or is not a directory", results)
	}
	return report.LoadCurrent(results, report.Planned{Registry: r, Files: files, Profile: profile, Sets: sets})
}

// reportPlugins are the report's plug-ins (section providers) the door
// passes to every figure and report call: the paper's (pkg/report/paper),
// which takes part only where an experiment file names it in its report
// key (report = ["paper"]), so that a report on experiments of one's own
// has no word of the paper.
func reportPlugins() []report.Plugin { return []report.Plugin{paper.Plugin{}} }

// PlotResults draws every figure of res into the directory figures (PNG,
// SVG and PDF, and the files of the report's plug-ins that present an
// experiment of res: the paper's Table 1 as Markdown and CSV) and returns
// the files written.
func PlotResults(res *Results, figures string) ([]string, error) {
	return report.Plot(res, figures, reportPlugins()...)
}

// UndeclaredFigures returns the ids of the experiments of res whose files
// declare no [[figures]], sorted: PlotResults draws the default figures
// for them (each recorded metric against compute time).
func UndeclaredFigures(res *Results) []string { return report.Undeclared(res) }

// FigureNames returns the base names of the files the figures of
// experiment id are drawn to, for every dataset its finished cells cover.
func FigureNames(res *Results, id string) []string { return report.FigureNames(res, id) }

// decisionsFile is the file of the decisions behind the report, relative
// to the folder the command runs in (the checkout).
const decisionsFile = "docs/DECISIONS.md"

// claimsPlugins reads the claims files at paths (paper.LoadClaims) and
// returns a plug-in for each (paper.ClaimsPlugin); the first file that
// cannot be read or parsed is an error naming the file, line and key.
func claimsPlugins(paths []string) ([]paper.ClaimsPlugin, error) {
	var out []paper.ClaimsPlugin
	for _, p := range paths {
		c, err := paper.LoadClaimsPlugin(p)
		if err != nil {
			return nil, fmt.Errorf("claims file: %w", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// WriteResultsReport draws the figures of res as PlotResults does and
// writes the Markdown report of res (deviations, the sections of the
// plug-ins that present its experiments, as the paper's claims with their
// verdicts, tuning, other experiments, reference diagnostics) to the file
// out, atomically, its figure links relative to out's folder, and its
// long lists beside it (out without its extension, then report.CellsList
// and report.VersionsList: REPORT-cells.csv and REPORT-versions.csv). Each of
// claims is a claims file of one's own (the format of
// pkg/report/paper/claims.toml): the report adds a section "Claims (FILE)"
// with the verdict of each of its claims on res. The claims files are read
// first: one that cannot be parsed, or pools an experiment res holds no
// result of, is an error, and nothing is drawn or written.
func WriteResultsReport(res *Results, figures, out string, claims ...string) error {
	extra, err := claimsPlugins(claims)
	if err != nil {
		return err
	}
	plugins := reportPlugins()
	for _, p := range extra {
		if err := p.Check(res); err != nil {
			return fmt.Errorf("claims file: %w", err)
		}
		plugins = append(plugins, p)
	}
	if _, err := PlotResults(res, figures); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(out), figures)
	if err != nil {
		if rel, err = filepath.Abs(figures); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	opts := report.Options{Figures: filepath.ToSlash(rel), FigureDir: figures, Plugins: plugins}
	// The report links its sections to the decisions behind them when it
	// is written from a checkout that holds them.
	if fi, err := os.Stat(decisionsFile); err == nil && fi.Mode().IsRegular() {
		if d, err := filepath.Rel(filepath.Dir(out), decisionsFile); err == nil {
			opts.Decisions = filepath.ToSlash(d)
		}
	}
	// The long lists (every skipped cell, every code revision) go to CSV
	// files beside the report, which counts them and links the files.
	prefix := strings.TrimSuffix(out, filepath.Ext(out))
	opts.Lists = filepath.Base(prefix)
	if _, err := report.WriteLists(prefix, res); err != nil {
		return err
	}
	if err := report.Write(&b, res, opts); err != nil {
		return err
	}
	return atomicfile.Write(out, b.Bytes(), 0o644)
}

// Plot draws every figure the current results under the directory results
// allow into the directory figures (PNG, SVG and PDF) and returns the files
// written: LoadResults, then PlotResults. It never computes a result; no
// current result at all is an error.
func Plot(r *Registry, files []string, profile, results, figures string) ([]string, error) {
	res, err := current(r, files, profile, results)
	if err != nil {
		return nil, err
	}
	return PlotResults(res, figures)
}

// WriteReport draws the figures as Plot does and writes the Markdown report
// of the current results to the file out, with the verdicts of the claims
// files claims: LoadResults, then WriteResultsReport.
func WriteReport(r *Registry, files []string, profile, results, figures, out string, claims ...string) error {
	if _, err := claimsPlugins(claims); err != nil {
		return err
	}
	res, err := current(r, files, profile, results)
	if err != nil {
		return err
	}
	return WriteResultsReport(res, figures, out, claims...)
}

// current loads the current results under results; none is an error.
func current(r *Registry, files []string, profile, results string) (*Results, error) {
	res, err := LoadResults(r, files, profile, results)
	if err != nil {
		return nil, err
	}
	if len(res.Cells) == 0 {
		return nil, fmt.Errorf("repro: no current results under %s for %v (profile %q): run them first", results, files, profile)
	}
	return res, nil
}
