// Package report turns a cached results tree into figures and a Markdown
// report, for any experiment files: the deviations from their full
// protocol, the figures they declare, the Tuning section, a section per
// experiment with its final values and figures, and the reference
// diagnostics. It reads the files the harness writes
// (results/<profile>/<experiment>/<method>/<dataset>/s<split>/n<N>.csv and
// .json) and the experiment files, and nothing else: it does not import
// the methods, so a figure can never be recomputed by accident, and
// regenerating every figure takes seconds.
//
// The report knows no paper. What a particular set of experiments needs
// beyond that (the paper's claims with their verdicts, its Table 1) comes
// from a plug-in (Plugin, a section provider) that the caller passes and
// that takes part only where an experiment file names it in its top-level
// report key; pkg/report/paper is the paper's, which pkg/repro passes.
//
// The report is written for a reader: Write passes it through Reflow, so
// that no prose line exceeds MaxProseLine characters (a long paragraph is
// broken after its sentences, which renders the same), and a long list
// (skipped or ignored cells, code revisions) is counted in the text and
// written in full by WriteLists to CSV files beside the report
// (Options.Lists). Only a table row may be longer, up to MaxLine.
//
// # Current results
//
// A results directory keeps whatever was ever run into it: cells of methods
// since renamed or removed, cells made under settings, data or code
// versions since changed. LoadCurrent keeps only the results the
// experiment files stand for now: it plans the files' cells with the
// harness (under the profile each result records, or one given) and keeps
// a result when its cell is planned and the harness finds it done, failed
// or skipped under the cell's current cache key, exactly as repro list
// and repro run decide what is cached. The others are Ignored, stale or
// orphaned, and the report lists them among its deviations.
//
// # Declared figures
//
// Each experiment file declares its figures in [[figures]] tables
// (harness.Figure; the schema is in the harness's documentation): the x
// axis (compute seconds, gradient evaluations or particles), the metrics,
// the methods, log axes, bands, a rate fit and panels. LoadCurrent records
// them in Results.Figures (Results.Declare does so for a tree read with
// Load) and Plot draws them for every dataset of the experiment; an
// experiment that declares none gets DefaultFigures, every recorded metric
// against compute time, and Undeclared lists it so that repro plot says
// so. Nothing is drawn, grouped or paired by a method's name: the panels
// of the ablations are the declared ones, and the twin of a control series
// (ExactTwins) is the series of the same kernel on a shared dataset, as the
// kind's traits read it from the recorded settings.
//
// The report names no method. What it needs to know of a method kind (its
// place in legends, whether each step adds one particle, what its recorded
// settings say of its series, which of its flags count) are the kind's
// traits (harness.KindTraits), registered beside the kind by whoever
// registers it (Registry.DescribeKind; pkg/experiment for the built-in
// kinds) and read from the registry that plans the results (Results.Kinds,
// each cell's Traits). A kind without traits is drawn after those with
// them, by method name, and its flags count as recorded. The code is
// split into draw.go (plot primitives, styles, layout, file formats),
// analysis.go (the series analysis the paper's claims use too),
// figures.go (the declared figures) and forest.go (WriteForest: a forest
// plot of one claim's per-dataset contrasts, their pooled estimate as a
// diamond, the no-effect line and the margin band).
//
// # Curves over splits
//
// A timed experiment (fig1a, fig2a, table1) records each split's metric at
// its own evaluation times. Each split's curve is interpolated linearly onto
// a common grid of 200 times spanning [max_s t_first(s), min_s t_last(s)],
// the interval every split covers, log-spaced when that interval exceeds two
// decades; the figure shows the mean and a mean ± sd band (sample sd,
// divisor n−1) at each grid time.
//
// Against the number of particles a method whose kind adds one particle
// per step (KindTraits.OneParticlePerStep) holds n particles at step n, so
// its curve is the trajectory of its largest cell of each split; any other
// method gives its final value at each cell's N. MMD² spans decades, so it is
// averaged on the log scale it is drawn on: the centre is the geometric mean
// exp(mean log MMD²) and the band exp(mean ± sd of log MMD²).
//
// Every MMD² figure against a reference sample (mmd2, fmmd2) draws the
// reference floor (ReferenceFloor) as a grey dashed line labelled
// "reference floor": the within-reference MMD², first half of every
// chain's draws against the second half in the metric's kernel, which the
// cells record under summary.reference.floors, as the geometric mean over
// splits. A closed-form target has none.
//
// # The convergence rate
//
// Linear convergence of Frank-Wolfe means MMD²(N) ≤ C·e^{−rN}: a straight
// line of log MMD² against N. SeriesRate fits log MMD² = a − r·N by least
// squares to the per-N mean of log MMD² over splits and reports r and
// R² = 1 − SS_res/SS_tot. Each series is measured in its own kernel
// (OwnKernelSeries): a random-feature series by the MMD² the method reports
// in its random-feature space (its kind's SeriesTraits.OwnMetric) when its
// cells record it, since in the RBF kernel it flattens at the random-feature
// approximation error; every other series by the RBF MMD². In the rff
// figure a series whose LMO follows the exact direction is drawn dashed in
// the colour of its twin of the paper's direction (ExactTwins); its two
// panels (own kernel, common RBF kernel) stand side by side with the
// legend, one entry per series with its rate, below them.
//
// # Tuning
//
// A tuning experiment (role = "tuning", Results.Tuning) enters no claim of
// a plug-in. The report's Tuning section gives, per dataset and method kind, its grid
// (TuningGrids: the configurations, the settings in which they differ),
// each configuration's metrics at the end of its budget (mean ± sd over
// splits) and the chosen one: the best mean of the experiment's first
// metric in the direction its registered meaning gives (lower for an error
// or discrepancy, higher for an accuracy or a log-likelihood); a metric
// without one chooses none, and the section says why.
//
// # What a metric means
//
// The report never reads a metric's meaning from its name. Results.Metrics
// is the table of meanings (harness.MetricMeaning) of the registry that
// plans the results (LoadCurrent takes it from Planned.Registry, the one
// the experiments ran with): the axis label in words (with the rows the
// experiment's metrics evaluate, and the exact label where a dataset's
// reference is the target's closed form), the direction that ranks a
// tuning grid (and sets the levels and comparisons of the paper's claims),
// and whether a figure's y axis is logarithmic when it does not say. A
// metric without a meaning is drawn under its name marked Unregistered on
// a linear axis, and no rule ranks it: a tuning grid chooses nothing (and
// a claim leaves its comparisons unmeasured), saying why.
//
// # Plug-ins
//
// Write puts them in a Markdown report: a head (a plug-in's title and
// opening, else a generic one), the cells counted, the deviations
// (reduced profiles, data subsets named by the dataset labels, skipped
// and failed cells with their reasons, flagged HMC references, timed
// experiments run under different -j, naming the methods of each setting,
// and timed cells that ran beside other work: a 1-minute load average
// above jobs × threads + 1 at their start or end), then the sections of
// every plug-in of Options.Plugins whose Experiments are not empty, then
// the Tuning section, the posteriordb benchmark, the experiments no
// plug-in presents ("Experiments", or "Other experiments" beside a
// plug-in's), the HMC reference diagnostics, in parameter space and,
// where fmmd2 is evaluated, on the predictions, and the flagged results.
// Plot draws the declared figures, then the files of the same plug-ins. A
// plug-in names itself (Name), says which experiments it presents
// (Experiments; Declares reads the experiment files' report key), gives
// the head (Head), writes its sections (Sections) and its files (Plot);
// importing it registers nothing.
package report
