// Package harness turns experiment files into independent cells, runs them
// in parallel, and caches their results so that no finished cell is ever
// computed twice.
//
// # Experiment files
//
// An experiment is a TOML file:
//
//	id = "fig1b"                      # required; names results/fig1b/
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
//
//	[eval]
//	metrics = ["mmd2", "accuracy"]    # required; registered metrics
//	every = 0                         # steps that are multiples of it
//	every_seconds = 0                 # compute time since the last evaluation
//	log = true                        # steps 1, 2, 5, 10, 20, 50…
//	rows = "test"                     # or "validation", "development"
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
//	particles = [10, 20, 50, 100]     # one cell each; omitted = one cell
//	datasets = ["covertype"]          # optional; a subset of the file's
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
// Decoding is strict: an unknown key (also inside a settings table or a
// profile), a value of the wrong type, a missing required key or a value
// out of range is a *ConfigError naming the file, the line and the key.
// The settings keys of the built-in kinds are the struct tags of the method
// packages' own Settings (mmdfw.Settings, svgd.Settings, sp.Settings,
// sgld.Settings, hmc.Settings; `go doc` lists them with their defaults),
// plus the wiring's start selectors (internal/experiment); a value out of
// range is what the package's Validate refuses (a *setting.Error, reported
// at the key's line).
// Methods are tables rather than an array of tables so that every key has
// one path, and hence one line, and so that a profile matches methods by
// name. A profile is decoded into the same structure as the file and
// applied field by field: a field the profile defines replaces the base's
// (lists are replaced whole), and a method's settings are decoded in two
// layers, the base table then the profile's. Every profile of a file is
// resolved when the file is loaded, so a mistake in the full profile is
// found by a quick run. Only the profiles in Profiles may appear.
//
// # Datasets of one's own
//
// A file may declare datasets in [data.NAME] tables, decoded strictly into
// the settings type that the wiring registered with RegisterFileDataset
// (internal/experiment: CSVData, a CSV file with a header row, its target
// and feature columns, a logistic or bnn model, seeded or PBP-layout
// splits). NAME is then a dataset of that file, listed in datasets like a
// registered one; it may not be a registered dataset's name, and only the
// base of the file declares data (not a profile, not an override). The
// wiring builds the dataset when the file is loaded, so a missing column
// or a bad cell is an error of the load, naming the CSV file, line and
// column; its Checksums (the CSV's sha256, its split files', the
// declaration's) enter the cache keys like a registered dataset's.
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
// # Overrides
//
// LoadFileSet (repro run, list, status and prepare --set KEY=VALUE, repeatable) lays
// overrides over the experiment after the profile: KEY is a dotted key of
// the file without profiles.<name> (methods.svgd.settings.step, splits,
// budget.seconds, reference.settings.chains), VALUE a TOML value
// (0.01, [0,1], "rbf", { step = 0.01 }). They are applied and checked like
// a profile (a table value sets the keys it names; a later override of the
// same key wins) and as strictly as the file: an unknown key, a wrong type
// or a value out of range is a *ConfigError with the key path and the
// override. Overrides change cells exactly as the same edit of the file,
// so they enter the cache key through the values they change (an override
// to the file's own value keeps its cached results); Experiment.Overrides
// goes into every provenance file.
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
// version and the method kind's registered version. Results are written to
// results/<id>.csv and results/<id>.json; the JSON (the Provenance) is
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
// data is absent, or of another profile).
//
// # Running
//
// Runner.Run runs the unfinished cells, at most Options.Jobs at once. Each
// method reports snapshots to a recorder that evaluates the scheduled
// metrics (evaluation time is excluded from the method's clock by
// particle.Report), enforces the budget by returning particle.ErrStop, and
// returns the context's error once the run is cancelled, so that an
// interrupted cell stops at its next snapshot and writes nothing. A cell
// that fails or panics is recorded as failed with its error and retried by
// the next run; the others go on.
//
// Quantities a method knows exactly about its own snapshot
// (particle.Snapshot.Stats, e.g. MMD-FW's MMD² in its own random-feature
// kernel) are written at the evaluated snapshots as further metric rows
// named "method:<key>" (StatPrefix), after the scheduled metrics and in
// sorted key order, so that the CSV stays deterministic.
//
// # Time, threads and -j
//
// Compute seconds are each cell's own wall-clock time, measured by the
// method's stopwatch. Cells that run at the same time share the cores'
// memory bandwidth and caches, so a cell's measured time grows with -j even
// when it has a core to itself, and it grows much more when cells outnumber
// cores. Each cell therefore gets a thread budget, Threads = max(1,
// NumCPU/j), that the wiring hands to the methods' worker settings, so the
// machine is never oversubscribed; the default -j is NumCPU, one cell per
// core with one thread each. For experiments marked timed = true, curves
// against seconds compare methods fairly only when all their cells ran
// under the same -j; the provenance records jobs, threads and the host, and
// the figures of the paper's timed experiments should be made with one
// setting (the default) throughout.
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
// logs its chains' progress through Env.ChainMonitor). Runner.ReferenceArtefact
// and ReadReference find and decode a cached reference without computing it
// (repro reference).
package harness
