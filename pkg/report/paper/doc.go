// Package paper is the report's plug-in (report.Plugin) for the
// experiments of Futami, Cui, Sato and Sugiyama, "Bayesian posterior
// approximation via greedy particle optimization" (AAAI 2019): the report's
// title and opening, the verdict table and the five claims with their
// evidence, Table 1 and the SVGD anchor against Liu & Wang's Table 2. It
// takes part in a report only where an experiment file names it in its
// top-level report key (report = ["paper"]: experiments/fig1a.toml and the
// other files of the paper's figures and tables); a report on experiments
// of one's own never mentions the paper.
//
// Importing the package registers nothing: pkg/repro passes Plugin{} to
// the report explicitly.
//
// The files: paper.go (the plug-in), claims.toml (the claims declared as
// data) and claimspec.go (its parser), userclaims.go (the plug-in of a
// claims file of one's own), evaluate.go (the evaluator's loop
// and the registered statistics), pooled.go and pooledmd.go (the pooled
// estimates and their report), claims.go (Claim, Claims, claim 2),
// claim1.go, claim2family.go, claim34.go, claim5.go (the other claims),
// verdicts.go (the verdict table and each claim's section), contrast.go
// (paired contrasts and their tally), swap.go (one-factor swap tables),
// arms.go and starts.go (which methods stand for a kind, their starts and
// start-only baselines), budget.go and table.go (Table 1 under budgets),
// spbnn.go (claim 4's scope), anchor.go (the SVGD anchor), rate.go (claim
// 2's rule and its thresholds), kinds.go (the paper's methods by kind: the
// report's core names none) and posteriordb.go (the claims' extended
// evidence, which Plugin.Extend adds to the core's posteriordb section,
// report.Extender). They read the results through the report's exported
// API only.
//
// # Verdicts
//
// Claims checks the five claims of the specification with fixed decision
// rules (each Claim carries its rule in words); no verdict is set by hand.
// A verdict is a set of paired contrasts (Contrast): two arms that should
// differ in the method only, compared split by split under the same
// budget, rows and snapshot rule, the difference of one measure oriented so
// that positive goes the claim's way. Over the splits Paired gives the
// mean and a 95 % paired-t interval; the interval read against
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
// protocol at a time; Claim.Difference and TallyOutcome say from it
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
// # Claims as data, one pooled estimate each
//
// The claims are declared in claims.toml (PaperClaims; ParseClaims and
// LoadClaims read any such file, with errors naming the file, line and
// key): per claim its statement (at most 12 words), the arms by role
// (under test, comparator, start-only baselines), the statistic (cost to
// level, metric at budget, MMD² at equal N, metric at equal N or cost,
// rate in N), the direction, the test (superiority, non-inferiority,
// equivalence; "every" for claim 2's rate) with its margin and the reason
// for it, the experiments and metrics pooled, and per protocol the cost
// axis, snapshot rule and arms. One loop (sectionContrasts) computes the
// contrasts of any declared claim; the claims' sections above are read
// from it. Evaluate (ClaimResults for the paper's) pools each claim under
// each protocol: every counted contrast is a stratum, the estimate the
// mean of the strata's mean log ratios (or differences), its 95 %
// interval a stratified bootstrap (BootstrapResamples, seeded), and
// P(improvement) rliable's probability of improvement for paired runs
// (per data set the share of splits on which the arm under test does
// better, a tie ½, averaged over the data sets, with the same bootstrap's
// interval); the verdict (supported, contradicted, undecided,
// unmeasured) reads the interval against the margin, with two one-sided
// tests (the 90 % interval) for equivalence. Per data set the claim's test
// is a paired t, Holm-adjusted across the strata. Left out of a pooled
// estimate, each listed with its reason (ClaimResult.Excluded): contrasts
// whose arms differ in more than the method, splits decided by the start
// (both arms reach the level at their first snapshot, or an arm is read
// at N = 1 or before its first step), the bound of an arm that never
// reaches the level although its whole run cost less than the other's
// cost to it (inconclusive, not worse), an arm read at a budget it
// stopped more than BudgetTolerance short of (ranShort: the arms' costs
// differ), a data set with one kept split beside data sets with several
// (ExclOneSplit), runs flagged "collapse" or "diverged", and measures against an HMC reference with a chain at the
// leapfrog cap (RefCapped: hmc.Settings.PathCapped on every
// reference). ClaimResult.Forest describes each result's forest plot,
// which Plugin.Plot draws (report.WriteForest) as claim-<id>-<protocol>.png,
// .svg and .pdf beside the other figures.
//
// Claims of one's own: ClaimsPlugin (userclaims.go; LoadClaimsPlugin reads
// a file) is a report plug-in for a claims file in the same format about
// any experiments, which `repro report --claims FILE` adds to the report.
// It writes a section "Claims (FILE)" with the pooled verdicts
// (WritePooledFrom) and each claim's estimate (WriteClaimPooled), takes no
// title and presents no experiment (report.Annotator). Evaluate reads any
// experiment: the arm of a kind under a protocol is the method the
// experiment file declares for it (a method's protocols key), else the
// first of that kind in legend order; claims of one section are computed
// together only where they share their arms by role and their protocol.
// Check refuses a file pooling an experiment without results, naming the
// file, line and key.
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
package paper
