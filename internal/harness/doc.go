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
// Decoding is strict: an unknown key (also inside a settings table or a
// profile), a value of the wrong type, a missing required key or a value
// out of range is a *ConfigError naming the file, the line and the key.
// Methods are tables rather than an array of tables so that every key has
// one path, and hence one line, and so that a profile matches methods by
// name. A profile is decoded into the same structure as the file and
// applied field by field: a field the profile defines replaces the base's
// (lists are replaced whole), and a method's settings are decoded in two
// layers, the base table then the profile's. Every profile of a file is
// resolved when the file is loaded, so a mistake in the full profile is
// found by a quick run. Only the profiles in Profiles may appear.
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
// results/<profile>/<id>.csv and results/<profile>/<id>.json (<profile> is
// quick, full, or base for a file's base settings), so that the cells of
// two profiles of one experiment, which share their ids, never share a
// file; the JSON (the Provenance) is
// written last, both by writing a temporary file and renaming it, so a cell
// is finished exactly when its JSON exists with its current key. A cell
// whose data is missing ends as skipped: it is not retried until the data
// appears (which changes its key) or --force is given.
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
// first one's result. Env.Reference is built on it.
package harness
