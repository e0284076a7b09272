// Package harness turns experiment files into independent cells, runs them
// in parallel, and caches their results so that no finished cell is ever
// computed twice.
//
// # Experiment files
//
// An experiment is a TOML file:
//
//	id = "fig1b"                      # required; names results/<profile>/fig1b/
//	description = "Covertype LR: MMD² against the number of particles"
//	deviation = ""                    # how this protocol departs from the paper
//	seed = 1                          # enters every cell's random seed
//	role = "report"                   # or "tuning": see Tuning experiments
//	timed = false                     # curves against wall-clock time?
//	datasets = ["covertype"]          # required; registered datasets
//	splits = [1, 2, 3, 4, 5]          # required; split indices or seeds
//
//	[budget]                          # optional; 0 = no limit
//	steps = 100                       # stop at this snapshot step
//	seconds = 0                       # stop at this much compute time
//	grad_evals = 0                    # stop at this many per-datapoint
//	                                  # gradient evaluations
//
//	[eval]
//	metrics = ["mmd2", "accuracy"]    # required; registered metrics
//	every = 0                         # steps that are multiples of it
//	every_seconds = 0                 # compute time since the last evaluation
//	every_grad_evals = 0              # gradient evaluations since the last
//	log = true                        # steps 1, 2, 5, 10, 20, 50…
//	rows = "test"                     # or "validation", "development",
//	                                  # "development+test"
//	validation_fraction = 0.2         # rows = "validation" only
//	validation_seed = 0               # rows = "validation" only
//
//	[reference]                       # optional: the "true samples"
//	kind = "hmc"
//	particles = 1000
//	settings = { chains = 4 }
//
//	[methods.mmdfw-rbf]               # the table name is the display name
//	kind = "mmdfw"                    # required; a registered method kind
//	particles = [10, 20, 50, 100]     # one cell each; omitted = one cell at
//	                                  # the method's default (never [])
//	datasets = ["covertype"]          # optional; a subset of the file's
//	protocols = ["paper", "fair"]     # optional: the arm of its kind (below)
//	[methods.mmdfw-rbf.settings]      # decoded strictly into the kind's Settings
//	weights = "bq"
//
//	[profiles.quick]                  # same shape as the file, any subset
//	splits = [1]
//	[profiles.quick.methods.mmdfw-rbf]
//	particles = [10, 20]
//
//	[data.own]                        # optional: a dataset of the file's own
//	file = "own.csv"                  # (see below); named in datasets = ["own"]
//
//	[[figures]]                       # optional: what the report draws (below)
//	id = "fig1b"
//	y = "mmd2"
//
// A top-level report key (report = ["paper"]; base of the file only)
// names the report's plug-ins that present the experiment beside the
// generic sections (pkg/report: Plugin); like the figures it enters no
// cache key.
//
// Before it is parsed, an experiment file must be a regular file of at
// most MaxConfigBytes (1 MiB), with no dotted key or table header of more
// than MaxKeyParts (32) parts and no arrays or inline tables nested more
// than MaxNesting (32) deep: a *ConfigError naming the file and the line,
// where such a file once took the TOML parser beyond any memory.
//
// Decoding is strict: an unknown key (also inside a settings table or a
// profile), a value of the wrong type, a missing required key or a value
// out of range is a *ConfigError naming the file, the line and the key.
// The settings keys of the built-in kinds are the struct tags of the method
// packages' own Settings (mmdfw.Settings, svgd.Settings, sp.Settings,
// sgld.Settings, hmc.Settings; `go doc` lists them with their defaults),
// plus the wiring's start selectors (pkg/experiment); a value out of
// range is what the package's Validate refuses (a *setting.Error, reported
// at the key's line).
//
// A key that an experiment file leaves out takes the package's zero value,
// the same default a caller of the package gets: the target's own scales
// (the Laplace fit's whitened coordinates) and a convergence stop with the
// iteration or particle count as its ceiling for svgd, sgld, sp and mmdfw.
// The paper's protocols are written out in experiments/*.toml (whiten =
// "none", stop = "fixed", and for mmdfw scale = "bandwidth" or "given",
// init = "perturb", starts = 1, weight_solver = "fista"). Two runs inside
// the wiring keep the reference code's settings because they are defined
// by it: the svgd-anchor kind and the SVGD particles of mmdfw's init or
// start "svgd". The cache key hashes the settings as written; repro rekey
// keeps results whose settings were only renamed or written out.
// A method's protocols key says under which of the report's two protocols
// ("paper": the paper's as it states it; "fair": gradient-evaluation
// budgets, validated snapshots, tuned arms) it is the arm that stands for
// its kind (mmdfw, svgd, sp, sgld…) in the claims. Absent means none; an
// unknown value, a value listed twice, or two methods of the same kind
// claiming the same protocol in one experiment is a *ConfigError. An
// experiment that declares no arm of a kind for a protocol gets the
// report's rule (the first by name). A profile or --set may change the key
// like any other method key; it enters no cache key (results are the same
// whichever arm the report reads them as).
// Methods are tables rather than an array of tables so that every key has
// one path, and hence one line, and so that a profile matches methods by
// name. A profile is decoded into the same structure as the file and
// applied field by field: a field the profile defines replaces the base's
// (lists are replaced whole), and a method's settings are decoded in two
// layers, the base table then the profile's. Every profile of a file is
// resolved when the file is loaded, so a mistake in the full profile is
// found by a quick run. Only the profiles in Profiles may appear. A file
// is loaded under a profile only when it has that profile's table: asking
// for another is a *ConfigError (errors.Is: ErrNoProfile) naming the file
// and the profiles it has, never the base settings run under the
// profile's name; an empty table ([profiles.full]) runs the base settings
// under the profile, as experiments/posteriordb.toml does for full.
//
// # Datasets of one's own
//
// A file may declare datasets in [data.NAME] tables, decoded strictly into
// the settings type that the wiring registered with RegisterFileDataset
// (pkg/experiment: CSVData, a CSV file with a header row, its target
// and feature columns, a logistic or bnn model, seeded or PBP-layout
// splits). NAME is then a dataset of that file, listed in datasets like a
// registered one; it may not be a registered dataset's name, and only the
// base of the file declares data (not a profile, not an override). The
// wiring builds the dataset when the file is loaded, so a missing column
// or a bad cell is an error of the load, naming the CSV file, line and
// column, as are a row whose field count is not the header's, a third
// value in a logistic model's target column, and a file too small for its
// seeded splits (each split needs data.MinSplitRows = 5 training and 5
// test rows, so data.MinRows(train_fraction) rows: 23 for 0.8); its Checksums (the CSV's sha256, its split files', the
// declaration's) enter the cache keys like a registered dataset's.
//
// # Figures
//
// The report (repro plot, repro report) draws the figures an experiment
// file declares in [[figures]] tables, decoded strictly into Figure and
// checked against the experiment:
//
//	[[figures]]
//	id = "fig1b"               # required; file base name (+ dataset, + metric)
//	title = "Fig. 1(b)"        # default: the experiment id
//	x = "particles"            # seconds | gradients | particles
//	                           # (default: seconds when timed, else particles)
//	y = "mmd2"                 # required; a metric or a list (one file each);
//	                           # registered metrics or "method:<statistic>"
//	fallback = "mmd2"          # metric drawn where the cells lack y's
//	y_label = ""               # default: the metric's label
//	methods = ["mmdfw-rbf"]    # default: every method of the file
//	kinds = ["mmdfw"]          # or select methods by kind and typed settings:
//	where = { kernel = "rff" } # each key decoded into the kind's Settings
//	                           # and compared with the resolved value (an
//	                           # unset setting is its zero value)
//	log_x = true               # default: time and gradient axes log when
//	log_y = true               # the grid spans > 2 decades, particles
//	                           # linear; y log for metrics registered
//	                           # so (MetricMeaning.Log)
//	band = "sd"                # sd (± one sd over splits) | none
//	fit = "rate"               # least-squares line of log y against N
//	own_kernel = false         # RFF series in their own kernel's MMD²
//	[[figures.panels]]         # optional: panels side by side, one legend
//	title = "Ablation: start"
//	methods = ["start-map", "start-prior"]
//
// A method or metric that is not the experiment's or registered, an
// unknown axis, band or fit, a selection that matches no method under some
// profile or names a setting no selected kind has, a repeated id, or
// figures in a profile is a
// *ConfigError naming the figure id, its key (figures[i].y) and line.
// Figures are presentation: they enter no cache key, so declaring or
// changing one never makes a result stale. A file without a figures key
// gets the report's default figures (each recorded metric against compute
// time), which repro plot says it drew; figures = [] declares none (an
// experiment whose output is a table, such as table1). The claims of the
// report name the figure ids they rest on.
//
// A figure's labels and default log y axis, and the direction in which a
// tuning grid or a claim ranks a metric, come from what the registry says
// the metric means: every metric, and every statistic a method reports, is
// described with DescribeMetric (MetricMeaning: a label in words, the
// direction in which it improves, whether it is drawn on a log axis, and
// what it reads: the evaluation rows, development rows, the reference, the
// target or the method's own state). The report reads these meanings from
// the registry that plans the results it draws (Registry.Meanings), never
// from a metric's name. A method kind is described alike
// (Registry.DescribeKind, KindTraits: its place in legends, whether each
// step adds one particle, what its recorded settings say of its series,
// which of its flags count), and the report reads the kinds' traits
// (Registry.Kinds), never a kind's name.
//
// # Tuning experiments and held-out rows
//
// eval.rows says which rows the metrics evaluate, for any experiment. The
// default, "test", is the published split: the method sees the training
// rows and the metrics read the test rows. "validation" carves a fifth
// (eval.validation_fraction, in (0, 1)) of each split's training rows,
// chosen by a permutation seeded by eval.validation_seed, the dataset name
// and the split only, so the same rows for any run order or -j;
// "development" holds out the SVGD reference code's development rows, the
// last round(0.1·n) of the n training rows, at most 500. With either, the
// method sees the remaining training rows (in their order), the metrics
// (rmse, test_ll, accuracy) evaluate the held-out ones, and the split's
// test rows are dropped as it is loaded: nothing the method, the MAP, a
// reference or a metric computes reads them. The features and y keep the
// standardisation of the whole training split, as in the SVGD reference
// code. The rows selection enters the cache keys of the cells, of their
// references and of their MAP artefacts, and an experiment that does not
// set it keeps the keys it had (Rows, Env.Rows).
//
// role = "tuning" declares an experiment that chooses settings. The
// harness refuses, as a *ConfigError naming the file, line and key, a
// tuning experiment (under any profile or override) whose metrics would
// read a reported split's test rows: it must set eval.rows to
// "validation" or "development", or name only splits ≥ TuningSplits
// (1000), which a reported experiment may not name, so that a dataset
// whose splits are seeds (Covertype) can give it test rows that no
// reported number reads.
//
// A tuning file may declare how it chooses, in [[choose]] tables (base of
// the file only; Choose; they enter no cache key), one per named rule:
//
//	[[choose]]
//	name = "fig1a"                    # required; lower-case, digits, hyphens
//	kinds = ["mmdfw", "svgd"]         # optional: the kinds it reads, or
//	# methods = ["svgd-a", "svgd-b"]  #   the methods (default: all)
//	metric = "test_ll"                # required; one of eval.metrics
//	n = 100                           # optional: the snapshot at n particles
//	                                  # (0, the default: each cell's final)
//	cells = "geomean"                 # optional: a method's particle counts
//	                                  # make one configuration (geometric mean)
//	tie_absolute = 0.001              # or tie_relative = 0.01 (of the best)
//	then = ["grad_evals", "accuracy", "test_ll"] # tie-breaks in order
//	# or, for one configuration per kind that serves every dataset:
//	# across = "datasets"             # with combine = "mean-rank"
//	# per = "start"                   # choose per start, then between them
//	# ties = "file-order"             # ties to the first listed in the file
//
// Per dataset and method kind, a configuration's value on a split is the
// metric at the snapshot the rule reads: with n, the final snapshot of the
// cell with n particles, else the snapshot at step n of a greedy method's
// larger cell; without it each cell's final snapshot. With cells =
// "geomean" a method with several particle counts is one configuration,
// its value the geometric mean of its cells' (their gradient evaluations
// summed, other metrics averaged); otherwise each count is a
// configuration. The values are averaged over the splits and the best mean
// wins, in the direction of the metric's registered meaning; a mean within
// the tolerance of the best is a tie, broken by then in order (grad_evals:
// fewer gradient evaluations at the snapshot read; a metric: its better
// mean; each compared exactly), then by legend order. A rule naming a
// metric, tie-break, kind or method the file lacks, two tolerances, or a
// rule in a file without role = "tuning", is a *ConfigError naming the
// file and the key (choose.I.KEY).
//
// With across = "datasets" and combine = "mean-rank" the rule chooses, per
// method kind, one configuration that serves every dataset: a
// configuration's value on a dataset is its mean over the splits as above;
// each dataset ranks the configurations by it (1 the best in the metric's
// direction, equal values sharing the mean of their places; a dataset where
// one of them has no value ranks none of them), and the smallest mean rank
// over the datasets wins, compared exactly. With per = "start" the
// configurations are first grouped by their start (the recorded setting
// start, else init, else "default"): each group chooses so, then each
// dataset ranks the groups' choices and the smallest mean rank among them
// wins. Ties go to the first in legend order, or, with ties =
// "file-order", to the configuration listed first in the file (which ties
// = "file-order" also gives to per-dataset rules once then is exhausted).
// across needs combine and excludes tie_relative, tie_absolute and then;
// per needs across. A tuning file without rules is chosen
// by the report's generic rule: the best mean of its first metric at each
// cell's final snapshot.
//
// # Overrides
//
// LoadFileSet (repro run, list, status and prepare --set KEY=VALUE, repeatable) lays
// overrides over the experiment after the profile: KEY is a dotted key of
// the file without profiles.<name> (methods.svgd.settings.step, splits,
// budget.seconds, reference.settings.chains), VALUE a TOML value
// (0.01, [0,1], "rbf", { step_size = 0.01 }). They are applied and checked like
// a profile (a table value sets the keys it names; a later override of the
// same key wins) and as strictly as the file: an unknown key, a wrong type
// or a value out of range is a *ConfigError with the key path and the
// override. Overrides change cells exactly as the same edit of the file,
// so they enter the cache key through the values they change (an override
// to the file's own value keeps its cached results); Experiment.Overrides
// goes into every provenance file. A cell that overrides change (its key
// document, data aside, is not that of the file's cell of the same id)
// or add (an id the file does not have) is kept apart, as Hydra keeps
// each override's outputs: its files live under
// <results>/<profile>/<experiment>@<namespace>/, where the namespace
// (Experiment.Namespace) is a short hash of the overrides in a canonical
// form, so that the file's own cell keeps its result, current. A cell the
// overrides leave as the file has it (--set splits=[0] or datasets=[…]
// only selects cells) is the file's own, and shares its files. Status,
// list, plot and report given the same overrides read the same
// namespace.
//
// Neither description nor deviation enters a cache key: deviation is text
// for the report, which lists it (as a profile resolves it) among the
// deviations from the paper, e.g. a shorter reference than the base
// protocol's set by the full profile to fit the machine.
//
// A method runs on every dataset of the file unless it gives its own
// datasets list, a subset of the file's (resolved under the same profile):
// a method table whose settings only some datasets support, such as a
// closed form that exists for Gaussian targets only, names those. A
// dataset that is not in the file's list, a repeat or an empty list is a
// *ConfigError; a profile may override the list like any method field.
//
// # Cells
//
// A resolved experiment expands into cells, method × the method's datasets
// × split × particle count, in file order, with readable ids such as
// fig1b/mmdfw-rbf/covertype/s1/n100. A cell's random source is a PCG seeded
// with sha256(experiment seed ‖ id), so its results do not depend on the
// order cells run in, on -j, or on its own settings (changing a setting
// keeps the random stream: comparisons are paired).
//
// A cell's cache key is the sha256 of everything its result depends on:
// the resolved settings, particle count, dataset, split, the sha256 of the
// data files (from Dataset.Checksums, or the reason they are missing), the
// budget, the evaluation schedule, the reference, CodeVersion, the module
// version, the method kind's registered version and the registered version
// of every metric it evaluates that has one (RegisterVersionedMetric: a
// bumped metric makes stale exactly the cells that evaluate it). Results
// are written to
// results/<profile>/<id>.csv and results/<profile>/<id>.json (<profile> is
// quick, full, or base for a file's base settings), so that the cells of
// two profiles of one experiment, which share their ids, never share a
// file (nor does a cell that overrides changed share the file's own: see
// Overrides); the JSON (the Provenance) is
// written last, both by writing a temporary file and renaming it, so a cell
// is finished exactly when its JSON exists with its current key. A cell
// whose data is missing ends as skipped: it is not retried until the data
// appears (which changes its key) or --force is given.
//
// # State
//
// Runner.Status says whether a cell is done, failed, skipped, stale or
// pending; CellStatus.StaleReason names the inputs of a stale cell's key
// that changed since its result was computed (the recorded key document
// against the current one: settings.step 0.05 → 0.01, data.<file>
// changed, the data is missing now). Runner.Orphans lists the result files
// under an experiment's folder that none of its cells has. repro list and
// status --json print them per cell with the key, the result paths and the
// overrides; repro clean removes stale and orphaned files (dry run unless
// --yes; never those of running cells, of cells stale only because their
// data is absent, or of another profile, nor any file that does not decode
// as one of its results or is reached through a symbolic link).
//
// Results are verified whenever they are read: a cell whose key is current
// is done only while its CSV's sha256 is the csv_sha256 its provenance
// records. A CSV changed since it was written, or a provenance that cannot
// be read or decoded (truncated, a named pipe, a link), makes the cell
// stale with that reason (CellStatus.Unverified, StaleReason), never done
// and never an error that stops the other cells; a run recomputes it. A
// cell any of whose metric values is NaN fails. Markers, lock files,
// provenance, CSVs, artefacts and checkpoints are opened through package
// safefile: never through a symbolic link in the last element of their
// path, only when they are regular files, and without blocking on a pipe.
// Experiment ids, method and dataset names are folders of the results: a
// name that is empty, starts with '.' (".", "..") or holds a separator is
// refused when the file is loaded.
//
// # Running
//
// Runner.Run runs the unfinished cells, at most Options.Jobs at once. Each
// method reports snapshots to a recorder that evaluates the scheduled
// metrics (evaluation time is excluded from the method's clock by
// particle.Report), enforces the budget by returning particle.ErrStop, and
// returns the context's error once the run is cancelled, so that an
// interrupted cell stops at its next snapshot and writes no result (only its
// checkpoint, below). The
// recorder keeps no rows: each evaluated snapshot's lines go at once to a
// temporary file beside the cell's CSV (hashed as they are written), which
// is renamed into place when the cell ends, so that memory does not grow
// with the number of snapshots (eval.every = 1 over 10⁸ iterations). A cell
// that fails or panics is recorded as failed with its error and retried by
// the next run; the others go on.
//
// The recorder is a sampler.Checkpoints: a method whose State is a
// sampler.Checkpointer (SVGD, SGLD, Stein Points, MMD-FW) run through sampler.Run with the
// cell's recorder (or a sampler.UnwrapRecorder around it) saves its state,
// with the CSV written and the recorder's counts, every
// CellCheckpointEvery and when it is cancelled between two steps, to
// Runner.CheckpointFile(key), <results>/.tmp/checkpoints/<key>.ckpt (key
// the cell's cache key). A later run of the cell under the same key reads
// it (package safefile: a regular file, no link, at most 1 GiB), checks
// its sha256, key and cell, restores the state and logs "cell resumed from
// step K"; the rows that follow are those of an uninterrupted run, seconds
// aside. A checkpoint that fails any check, or that the method's
// UnmarshalState refuses, is logged ("checkpoint ignored") and removed,
// and the cell starts from its beginning; one that cannot be written is
// logged once and the cell goes on. The file is removed when the cell is
// written, done or failed. HMC cells have no state encoder and restart
// from their first step, as does an MMD-FW cell stopped in its set-up
// (before the snapshot of its first particle).
//
// Before any cell runs, Run checks what would otherwise fail every cell
// late: the memory each cell to run needs, estimated by its method kind
// (SetMemoryEstimate; floors, the dataset not being read: MMD-FW's and
// SVGD's N×N matrices, 8·N² bytes, HMC's N kept draws, the recorded rows
// of every evaluated snapshot) against Options.Memory, $MMDFW_MEMORY or
// the machine's available memory (a *ConfigError at the file, line and
// key that drive the estimate, with the value, the estimate and the
// memory); and that the results directory can be written (one error
// naming it).
//
// Quantities a method knows exactly about its own snapshot
// (particle.Snapshot.Stats, e.g. MMD-FW's MMD² in its own random-feature
// kernel) are written at the evaluated snapshots as further metric rows
// named "method:<key>" (StatPrefix), after the scheduled metrics and in
// sorted key order, so that the CSV stays deterministic.
//
// # Result diagnostics
//
// A method says how far its returned set is to be trusted in
// particle.Set.Diag: named values (R̂, ESS, KSD², iterations…) and flags,
// each a code and a reason. A cell records them in its provenance
// (Provenance.Diagnostics: "values", non-finite ones as the strings "NaN",
// "+Inf", "-Inf", "flags", "unchecked", the checks that could not run on
// the set with why, and "notes", information that is no flag) when there
// are any; they enter no cache key, so results made before a method said
// anything stay current. A
// flagged result is done: the log line of the cell, the run's summary
// (Summary.Flagged) and the report's section "Flagged results" name it,
// each with the same reasons (Diagnostics.Reason), and the summary and
// the report count flagged cells by flag code in the same words
// (FlagCounts).
// Options.Strict (repro run --strict) fails the cell of a flagged result,
// with the reasons in its error, and counts a cached flagged result as
// failed without recomputing it (it would be flagged again).
//
// # Runners that share a results directory
//
// Before any work on a cell a runner claims it: it takes the cell's
// running marker, <results>/<profile>/<id>.running, with an exclusive
// flock (an exclusive create where there is no flock). A cell another live
// runner holds, in this process or another or on another machine, is not
// touched: the runner waits for it without a job slot and counts the
// other's outcome, and runs it itself only if the other stopped without
// finishing it. After claiming, the runner reads the cell's status again,
// so a cell finished meanwhile is not recomputed. A runner never removes a
// result it did not write: a recomputation (stale, failed or --force)
// writes the new provenance beside the old (<id>.json.new), renames the
// new CSV into place and then the new provenance, so the old result stays
// whole until the new one is complete; the next claimant completes or
// discards a replacement cut short between the two renames
// (the .new provenance names its CSV's sha256).
//
// A cell whose data cannot be read (Dataset.Checksums fails with an error
// other than ErrDataMissing, e.g. a file of the wrong size) fails alone,
// with the error naming the file, and writes nothing; the other cells run.
//
// # Job slots and waiting
//
// At most Options.Jobs cells hold a job slot at once. A cell that waits for
// an artefact another cell or process is computing (a reference sample, a
// MAP point) gives its slot back while it waits, logs "cell waiting" with
// what it waits for (the artefact's key) and shows it on its progress bar,
// so a long reference never keeps the cells that do not need it from
// running. The first cell of each experiment's dataset split that has a
// reference starts first, so the long reference computations overlap
// everything else. Run's Summary.Time says where the time went: the wall
// time, the methods' compute seconds, the wall time during which some cell
// waited beside the waiting summed over cells (cell-seconds, which exceed
// the wall when cells wait side by side), the slot time of each
// experiment's cells and the time of each reference computed.
//
// # Time, threads and -j
//
// A cell's "seconds" in the log is its wall time in this run, from its
// claim to its result (Provenance End − Start): loading data, preparing
// metrics, computing any artefact it was the first to need, waiting
// (wait_seconds, also logged) and running. compute_seconds is the method's
// own clock at its last snapshot, evaluation excluded, which also carries
// the cost of a shared starting point (a MAP fit) charged to every method
// that starts from it, even when another cell computed it. A cell that
// never started logs no seconds.
//
// Compute seconds are each cell's own wall-clock time, measured by the
// method's stopwatch. Cells that run at the same time share the cores'
// memory bandwidth and caches, so a cell's measured time grows with -j even
// when it has a core to itself, and it grows much more when cells outnumber
// cores. Each cell therefore gets a thread budget, Threads = max(1,
// NumCPU/j), that the wiring hands to the methods' worker settings, so the
// machine is never oversubscribed; the default -j is NumCPU, one cell per
// core with one thread each. With two threads or more an SVGD cell splits
// each iteration over a team of goroutines (pkg/par) when that measures
// faster, with the same results. For experiments marked timed = true, curves
// against seconds compare methods fairly only when all their cells ran
// under the same -j; the provenance records jobs, threads, the host and the
// 1-minute load average at the cell's start and end (load_avg: a load well
// above jobs × threads says the machine was not otherwise idle), and the
// figures of the paper's timed experiments should be made with one
// setting throughout, -j 1 on an otherwise idle machine for the timed
// protocol. The figures the claims rest on are drawn against gradient
// evaluations, which no load changes.
//
// # Shared artefacts
//
// Env.Artefact computes a value (a MAP point, a reference sample) once per
// key: concurrent requests in one process share one computation, and
// processes that share the results directory (job arrays) serialise on a
// lock file (flock, released by the kernel if the holder dies) and read the
// first one's result. Env.Reference is built on it. A computation may
// resume: ArtefactOf tells it, from its context, the artefact's key and
// file, it keeps its state in CheckpointPath(file), and the store removes
// that file once the artefact is written (the HMC reference does so, and
// logs its chains' progress through Env.ChainMonitor). Beside each artefact
// written, <file>.sha256 (SumSuffix) records its key and checksum; an
// artefact that does not match its record is computed again, and one
// without a record (written before records were kept) is used as it is.
// Runner.ReferenceArtefact
// and ReadReference find and decode a cached reference without computing it
// (repro reference).
package harness
