// Package slurm writes and submits the Slurm batch scripts that spread the
// cells of experiment files over a cluster.
//
// The cells of a run are listed in a fixed order (harness.Plan) and
// numbered 0…N−1. A job array of T = ⌈N/K⌉ tasks covers them, K cells per
// task: task t runs
//
//	repro run FILE… --cells A-B --results DIR -j C
//
// with A = tK, B = min(A+K, N) − 1 and C the task's CPUs, into one results
// directory on a shared filesystem. The harness makes this safe: each cell
// writes its own files by atomic rename, and shared artefacts (HMC
// references, MAP points) are computed under a lock file. To keep the tasks
// from queueing on those locks, a first job (repro prepare) computes the
// artefacts and the array waits for it (--dependency=afterok).
//
// Grouping K cells per task trades the seconds of scheduling overhead of a
// task against the balance of the array. A re-submitted array holds only
// the tasks that still have an unfinished cell (Tasks, ArraySpec), and
// within a task repro run skips the finished cells, so nothing is computed
// twice.
//
// Every value is written so that bash and sbatch read it as given: shell
// words single-quoted (Quote), #SBATCH values double-quoted as sbatch's
// reader of those lines expects, '%' doubled in the --output pattern.
// What no quoting can carry is refused (Job.Validate, a *ValueError): a
// control character anywhere (a newline would end a comment or an #SBATCH
// line and start a command), a relative path, "hetjob" or "packjob" in an
// #SBATCH value, a backslash in the log directory.
package slurm
