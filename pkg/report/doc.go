// Package report turns a cached results tree into the paper's figures,
// Table 1 and a report that checks the paper's claims. It reads the files
// the harness writes (results/<profile>/<experiment>/<method>/<dataset>/
// s<split>/n<N>.csv and .json) and the experiment files, and nothing else: it does not
// import the methods, so a figure can never be recomputed by accident, and
// regenerating every figure takes seconds.
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
// of the ablations are the declared ones, and the approximate twin of an
// exact-direction series (ExactTwins) is the series of the same kernel on
// a shared dataset, read from the recorded MMD-FW settings. The claims
// name the figure ids they rest on (Claim.Figures). The code is split into
// draw.go (plot primitives, styles, layout, file formats), analysis.go
// (the series analysis the claims use too) and figures.go (the declared
// figures).
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
// Against the number of particles (fig1b, fig2b, rff) a greedy method
// (MMD-FW, Stein Points) holds n particles at step n, so its curve is the
// trajectory of its largest cell of each split; any other method (SVGD,
// SGLD) gives its final value at each cell's N. MMD² spans decades, so it is
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
// in its random-feature space (KernelMMD2, "method:mmd2_kernel") when its
// cells record it, since in the RBF kernel it flattens at the random-feature
// approximation error; every other series by the RBF MMD². In the rff
// figure a series whose LMO follows the exact direction is drawn dashed in
// the colour of its twin of the paper's direction (ExactTwins).
//
// # Verdicts
//
// Claims checks the five claims of the specification with fixed decision
// rules (each Claim carries its rule in words); no verdict is set by hand.
// A verdict is a set of paired contrasts (Contrast): two arms that should
// differ in the method only, compared split by split under the same
// budget, rows and snapshot rule, the difference of one measure oriented so
// that positive goes the claim's way. Over the splits Paired gives the
// mean, a 95 % paired-t interval and a sign test; the interval read against
// the contrast's tolerance Band gives Better, Worse or Inconclusive. A
// contrast whose arms differ in more than the method (StartOf: their start
// resolved by each kind's defaults; their budget or evaluation rows; on the
// seconds axis the run setting of their timed cells) is shown and not
// counted. Tally.Decide: Supported when more than half of the computed
// contrasts are better and none is worse, NotSupported when a counted one
// is worse, CannotDecide otherwise (one split, intervals covering the band,
// arms that differ in their start), NotMeasured without a contrast.
//
// Each claim is read under two protocols (protocolConfig): the paper's as
// it states it (compute seconds, final snapshots, the paper's arms) and
// the fair one (gradient evaluations, snapshots chosen on development
// rows, the fair arms against every SVGD arm). Claims 1 and 5 get a
// verdict on each cost axis (Claim.Verdicts), and claims 1, 3 and 5 a
// one-factor swap table (Claim.Swaps) whose rows change one factor of a
// protocol at a time; Claim.Difference and OutcomeParagraph say from it
// which factors decide.
//
//  1. cost to a level: per split the SVGD arm's value at its chosen
//     snapshot relaxed by Level (a run worse than the constant predictor
//     there has diverged and gives no level), each arm's cost to it read
//     from its own snapshots (costToLevel), ln(SVGD's cost / MMD-FW's);
//  2. every counted MMD-FW series is linear (TestRate): over the N above
//     its numerical floor (ZeroFloor of its largest, or the floor its own
//     tail shows), a geometric fit log MMD² = a + b·N has b < 0, a larger
//     R² than the power law log MMD² = a + c·log N and falls at least
//     MinDecades decades; where a dataset's reference is flagged in
//     parameter space but not on the network's predictions, its series
//     are read from fmmd2 (function space) and counted; otherwise from
//     mmd2, and series against a flagged reference are listed, not
//     counted; exact-LMO series are the control; each series' weights,
//     kernel, direction and candidate score are the run's (ResolveMMDFW);
//  3. at each particle count N, ln(MMD-FW's MMD² / SVGD's);
//  4. SP against MMD-FW on accuracy, MMD² and KSD², at equal N and at
//     equal cost;
//  5. RMSE and test LL of each arm's chosen snapshot within the same
//     budget, read as non-inferiority with a margin.
//
// # Table 1 under budgets
//
// A Table 1 cell run to budget.grad_evals is read at ¼×, 1× and 4× its
// reference budget, budget.grad_evals / RunBudgetMultiple (BudgetLevels):
// at each, the snapshot within the budget with the smallest dev_rmse, and
// that snapshot's test RMSE and test LL (a cell without development
// metrics, such as a baseline, reports its last snapshot within the
// budget). table1.csv is tidy: one row per dataset × method × budget with
// the columns CSVHeader.
//
// Methods of kinds ols and constant (IsFloor) are floors: rows of the
// table at every budget with their one value, and Table.NotBelowOLS lists
// per budget and dataset the BNN methods whose mean RMSE is not below
// OLS's; the Markdown lists them under the table.
//
// # Arms
//
// An experiment file may declare, per protocol, the arm that stands for a
// kind (a method's protocols key; Results.Declared records it). Claims 1,
// 3, 4 and 5 read the declared arm of each protocol; the fair protocol's
// SVGD arms are the SVGD methods declared for either protocol (the
// paper's first). Where an experiment declares no arm of a kind for a
// protocol (fig2a's mmdfw and mmdfw-stein, say), the claims use the first
// by name among those with the RBF kernel and the approximate LMO
// direction, and the fair protocol every such SVGD arm.
//
// # Tuning
//
// A tuning experiment (role = "tuning", Results.Tuning) enters no claim.
// The report's Tuning section gives, per dataset and method kind, its grid
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
// tuning grid and sets the levels and comparisons of claims 1, 4 and 5,
// and whether a figure's y axis is logarithmic when it does not say. A
// metric without a meaning is drawn under its name marked Unregistered on
// a linear axis, and no rule ranks it: a tuning grid chooses nothing and a
// claim leaves its comparisons unmeasured, saying why.
//
// Write puts them in a Markdown report, with a verdict table, the outcome
// paragraph and each claim's contrasts, after the deviations from the paper
// (reduced profiles, data subsets named by the dataset labels, skipped and
// failed cells with their reasons, flagged HMC references, timed
// experiments run under different -j, naming the methods of each setting,
// and timed cells that ran beside other work: a 1-minute load average above
// jobs × threads + 1 at their start or end), followed by Table 1, the SVGD
// anchor, the Tuning section, other experiments and the HMC reference
// diagnostics, in parameter space and, where fmmd2 is evaluated, on the
// predictions.
package report
