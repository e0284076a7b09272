package repro

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/slurm"
)

func init() {
	register(&command{
		name:    "slurm",
		summary: "write (and submit) a Slurm job array over the cells of experiment files",
		run:     slurmCmd,
	})
}

// repeated collects a flag given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, " ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// slurmFlags names the flag or argument each slurm.Job field comes from.
var slurmFlags = map[string]string{
	"Name": "--name", "Repro": "--repro", "Files": "experiment file", "Profile": "--profile",
	"Results": "--results", "Logs": "--results", "Dir": "working directory", "DataDir": "--data-dir",
	"Partition": "--partition", "Time": "--time", "Mem": "--mem", "Account": "--account", "Extra": "--sbatch",
}

// slurmValueError turns a *slurm.ValueError of j into a usage error naming
// the flag and the value given; other errors are returned as they are.
func slurmValueError(j *slurm.Job, err error) error {
	var ve *slurm.ValueError
	if !errors.As(err, &ve) {
		return err
	}
	what, v := slurmFlags[ve.Field], ve.Value
	if what == "" {
		what = ve.Field
	}
	if ve.Field == "Logs" {
		// The log directory is DIR/.slurm/logs.
		v = j.Results
	}
	return usagef("%s %q: %v", what, v, ve.Err)
}

func slurmCmd(e *cli, args []string) error {
	cmd := newCellCmd(e, cellSpec{
		name: "slurm",
		usage: []string{
			"usage: repro slurm FILE... [--profile P] [--cells-per-task K] [--partition P] [--time T]",
			"                  [--cpus-per-task C] [--results DIR] [--submit]",
			"\nWrites two sbatch scripts under DIR/.slurm: a job computing the shared artefacts",
			"(repro prepare) and a job array whose tasks run K cells each (repro run --cells A-B)",
			"into DIR, which must be on a filesystem the nodes share. Only the tasks holding an",
			"unfinished cell are in the array, so re-submitting resumes. With --submit, submits",
			"both (the array after the first succeeds) and prints the array's job id.",
		},
		results:       "results directory, shared by the nodes",
		noKeyRevision: true,
	})
	fs, profile, results := cmd.fs, cmd.profile, cmd.results
	perTask := fs.Int("cells-per-task", 1, "cells run by each array task")
	cpus := fs.Int("cpus-per-task", 1, "CPUs of each task; its cells run that many at once (repro run -j)")
	partition := fs.String("partition", "", "sbatch --partition")
	timeLimit := fs.String("time", "", "sbatch --time of each task, e.g. 2:00:00")
	mem := fs.String("mem", "", "sbatch --mem of each task, e.g. 4G")
	account := fs.String("account", "", "sbatch --account")
	var extra repeated
	fs.Var(&extra, "sbatch", "a further sbatch option for both jobs, one argument, e.g. --sbatch=--qos=short (repeatable)")
	name := fs.String("name", "", "job name (default repro-<experiment ids>)")
	reproExe := fs.String("repro", "", "repro executable the jobs run, on a shared filesystem (default: this one)")
	submit := fs.Bool("submit", false, "submit the jobs with sbatch and print the array's job id")
	files, err := cmd.parse(args)
	if err != nil {
		return err
	}
	if *perTask < 1 {
		return usagef("--cells-per-task %d: must be at least 1", *perTask)
	}
	if *cpus < 1 {
		return usagef("--cpus-per-task %d: must be at least 1", *cpus)
	}
	if len(cmd.sets) > 0 {
		// The job scripts run the files as they are on disk.
		return fmt.Errorf("repro slurm: --set is not passed to the jobs; write the change into the experiment file")
	}
	// Every value that reaches the scripts is checked before anything is
	// loaded or written.
	j := &slurm.Job{
		Name: *name, Profile: *profile, CellsPerTask: *perTask, CPUsPerTask: *cpus,
		Partition: *partition, Time: *timeLimit, Mem: *mem, Account: *account, Extra: extra,
	}
	if j.Repro = *reproExe; j.Repro == "" {
		if j.Repro, err = os.Executable(); err != nil {
			return err
		}
	}
	if j.Repro, err = filepath.Abs(j.Repro); err != nil {
		return err
	}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		j.Files = append(j.Files, abs)
	}
	if j.Results, err = filepath.Abs(*results); err != nil {
		return err
	}
	if j.DataDir, err = filepath.Abs(*cmd.dataDir); err != nil {
		return err
	}
	if j.Dir, err = os.Getwd(); err != nil {
		return err
	}
	scripts := filepath.Join(j.Results, ".slurm")
	j.Logs = filepath.Join(scripts, "logs")
	if err := j.Validate(); err != nil {
		return slurmValueError(j, err)
	}

	cells, err := loadCells(e.reg, files, *profile)
	if err != nil {
		return err
	}
	if _, err := cmd.checkData(cells, true); err != nil {
		return err
	}
	if len(cells) == 0 {
		return fmt.Errorf("%s: no cells", strings.Join(files, " "))
	}
	r := cmd.runner(Options{})
	unfinished := make([]bool, len(cells))
	var nUnfinished, nRunning int
	for i, c := range cells {
		st, err := r.Status(c)
		if err != nil {
			return err
		}
		switch {
		case st.Status == Done || st.Status == Skipped:
		case r.Running(c):
			nRunning++
		default:
			unfinished[i] = true
			nUnfinished++
		}
	}
	tasks := slurm.Tasks(unfinished, *perTask)
	if len(tasks) == 0 {
		fmt.Fprintf(e.stderr, "%d cells: none left to run (%d running); nothing submitted\n", len(cells), nRunning)
		return nil
	}

	j.Cells, j.Tasks = len(cells), tasks
	var ids []string
	for _, c := range cells {
		if len(ids) == 0 || ids[len(ids)-1] != c.Experiment.ID {
			ids = append(ids, c.Experiment.ID)
		}
	}
	base := strings.Join(ids, "+")
	if *profile != "" {
		base += "-" + *profile
	}
	if j.Name == "" {
		j.Name = "repro-" + base
	}
	prepScript, err := j.PrepareScript()
	if err != nil {
		return slurmValueError(j, err)
	}
	arrayScript, err := j.ArrayScript()
	if err != nil {
		return slurmValueError(j, err)
	}
	if err := os.MkdirAll(j.Logs, 0o755); err != nil {
		return err
	}
	prep, array := filepath.Join(scripts, base+"-prepare.sh"), filepath.Join(scripts, base+".sh")
	if err := atomicfile.Write(prep, prepScript, 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(array, arrayScript, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%d cells, %d unfinished, %d running: %d array tasks of up to %d cells (--array=%s)\n",
		len(cells), nUnfinished, nRunning, len(tasks), *perTask, slurm.ArraySpec(tasks))
	if !*submit {
		fmt.Fprintf(e.stdout, "wrote %s\n  and %s\nsubmit with\n  id=$(sbatch --parsable %s)\n  sbatch --dependency=afterok:$id %s\n",
			prep, array, slurm.Quote(prep), slurm.Quote(array))
		return nil
	}
	ctx := e.ctx
	pid, err := slurm.Submit(ctx, prep, "")
	if err != nil {
		return err
	}
	aid, err := slurm.Submit(ctx, array, pid)
	if err != nil {
		return fmt.Errorf("%w (the prepare job %s is submitted)", err, pid)
	}
	fmt.Fprintf(e.stderr, "submitted prepare job %s and job array %s (after %s succeeds); logs in %s\n", pid, aid, pid, j.Logs)
	fmt.Fprintln(e.stdout, aid)
	return nil
}
