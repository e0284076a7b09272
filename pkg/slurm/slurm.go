package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Job describes the job array over the cells of experiment files and the
// preparation job it depends on. Paths must be absolute: the jobs run on
// other machines, in the directory Dir. No value may hold a control
// character (Validate).
type Job struct {
	// Name is the job name (the array's; the preparation job adds
	// "-prepare").
	Name string
	// Repro is the repro executable, on a filesystem the nodes share.
	Repro string
	// Files are the experiment files, Profile the profile applied.
	Files   []string
	Profile string
	// Results is the shared results directory, Dir the jobs' working
	// directory and Logs the directory of their output files.
	Results, Dir, Logs string
	// DataDir is the data folder the jobs read (repro --data-dir); empty
	// leaves it to the jobs' environment.
	DataDir string
	// Cells is the number of cells N of the files under Profile, and
	// CellsPerTask the K cells each task runs.
	Cells, CellsPerTask int
	// Tasks are the array tasks to submit (nil: all ⌈N/K⌉).
	Tasks []int
	// CPUsPerTask is each task's --cpus-per-task, and its repro -j.
	CPUsPerTask int
	// Partition, Time, Mem and Account are passed to sbatch when not empty.
	Partition, Time, Mem, Account string
	// Extra are further sbatch options, one "#SBATCH" line and one sbatch
	// argument each ("--qos=short"): blanks and quotes in one are kept,
	// not read as separators.
	Extra []string
}

// ValueError reports a value of a Job that its batch scripts cannot hold.
type ValueError struct {
	// Field is the Job field holding the value ("Results", "Files",
	// "Extra", ...), Value the value.
	Field, Value string
	// Err says what is wrong with it.
	Err error
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("slurm: %s %q: %v", e.Field, e.Value, e.Err)
}

func (e *ValueError) Unwrap() error { return e.Err }

// CheckText returns an error if s holds a control character (U+0000 to
// U+001F, U+007F to U+009F). A newline or carriage return would end a
// comment or an #SBATCH line of a batch script and start a command of its
// own; quoting protects every other character.
func CheckText(s string) error {
	for i, r := range s {
		if r < 0x20 || r >= 0x7f && r <= 0x9f {
			return fmt.Errorf("holds the control character %U at byte %d; a batch script takes none", r, i)
		}
	}
	return nil
}

// checkOption returns an error if s cannot be written into an #SBATCH
// line: besides control characters, sbatch reads "packjob" or "hetjob"
// anywhere in such a line, whatever its quoting, as the start of another
// component of a heterogeneous job.
func checkOption(s string) error {
	if err := CheckText(s); err != nil {
		return err
	}
	l := strings.ToLower(s)
	for _, w := range []string{"hetjob", "packjob"} {
		if strings.Contains(l, w) {
			return fmt.Errorf("holds %q, which sbatch reads in an #SBATCH line as the start of a heterogeneous job's next component", w)
		}
	}
	return nil
}

// Validate returns a *ValueError for the first value the batch scripts
// cannot hold: a control character anywhere, a path that is not absolute
// (a relative one could be read by repro as a flag), or in the values of
// #SBATCH lines (Name, Dir, Logs, Partition, Time, Mem, Account, Extra)
// "hetjob" or "packjob"; Logs, the directory of Slurm's output pattern,
// may hold no backslash (Slurm drops those and then expands no %x, %j).
func (j *Job) Validate() error {
	type value struct {
		field, v     string
		path, option bool
	}
	vs := []value{
		{field: "Name", v: j.Name, option: true},
		{field: "Repro", v: j.Repro, path: true},
	}
	for _, f := range j.Files {
		vs = append(vs, value{field: "Files", v: f, path: true})
	}
	vs = append(vs,
		value{field: "Profile", v: j.Profile},
		value{field: "Results", v: j.Results, path: true},
		value{field: "Dir", v: j.Dir, path: true, option: true},
		value{field: "Logs", v: j.Logs, path: true, option: true},
		value{field: "DataDir", v: j.DataDir, path: j.DataDir != ""},
		value{field: "Partition", v: j.Partition, option: true},
		value{field: "Time", v: j.Time, option: true},
		value{field: "Mem", v: j.Mem, option: true},
		value{field: "Account", v: j.Account, option: true},
	)
	for _, e := range j.Extra {
		vs = append(vs, value{field: "Extra", v: e, option: true})
	}
	for _, v := range vs {
		err := CheckText(v.v)
		if err == nil && v.option {
			err = checkOption(v.v)
		}
		if err == nil && v.path && !strings.HasPrefix(v.v, "/") {
			err = errors.New("is not an absolute path")
		}
		if err == nil && v.field == "Logs" && strings.Contains(v.v, `\`) {
			err = errors.New("holds a backslash, which Slurm drops from an output path (and then expands no %x or %j)")
		}
		if err != nil {
			return &ValueError{Field: v.field, Value: v.v, Err: err}
		}
	}
	return nil
}

// NumTasks is the size ⌈N/K⌉ of the full array.
func (j *Job) NumTasks() int {
	k := max(1, j.CellsPerTask)
	return (j.Cells + k - 1) / k
}

// TaskCells returns the inclusive range of cell indices of task t.
func (j *Job) TaskCells(t int) (lo, hi int) {
	k := max(1, j.CellsPerTask)
	if t < 0 || t >= j.NumTasks() {
		panic(fmt.Sprintf("slurm: task %d out of range [0, %d)", t, j.NumTasks()))
	}
	lo = t * k
	return lo, min(lo+k, j.Cells) - 1
}

// Tasks returns, in order, the tasks of an array of k cells per task that
// hold at least one unfinished cell; unfinished[i] tells about cell i.
func Tasks(unfinished []bool, k int) []int {
	k = max(1, k)
	var ts []int
	for i, u := range unfinished {
		if u && (len(ts) == 0 || ts[len(ts)-1] != i/k) {
			ts = append(ts, i/k)
		}
	}
	return ts
}

// ArraySpec renders increasing task indices as an sbatch --array value,
// with runs of consecutive tasks as ranges: [0 1 2 5 7 8] is "0-2,5,7-8".
func ArraySpec(tasks []int) string {
	var b strings.Builder
	for i := 0; i < len(tasks); {
		j := i
		for j+1 < len(tasks) && tasks[j+1] == tasks[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(tasks[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(tasks[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Quote quotes s for a POSIX shell when it needs it.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+=:,@%", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// sbatchWord writes s as one argument of an #SBATCH line. sbatch splits
// those lines at blanks, reads ' and " as quotes, a backslash as making the
// next character literal (but a blank only within quotes) and an unquoted
// '#' as ending the line (_get_argument in Slurm's src/sbatch/opt.c). A
// value holding any of these is written within double quotes, with a
// backslash before each double quote and backslash.
func sbatchWord(s string) string {
	if !strings.ContainsAny(s, " \t\\'\"#") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('"')
	return b.String()
}

// outputPattern returns the sbatch --output pattern of the file pattern
// file in the directory dir: Slurm reads "%%" as '%' and expands the
// other % sequences, here those of file.
func outputPattern(dir, file string) string {
	return strings.ReplaceAll(dir, "%", "%%") + "/" + file
}

// header writes the #SBATCH lines common to both jobs; the values are
// those Validate checked.
func (j *Job) header(b *bytes.Buffer, name, output string) {
	line := func(opt string) {
		b.WriteString("#SBATCH " + sbatchWord(opt) + "\n")
	}
	line("--job-name=" + name)
	line("--chdir=" + j.Dir)
	line("--output=" + output)
	line("--ntasks=1")
	line("--cpus-per-task=" + strconv.Itoa(max(1, j.CPUsPerTask)))
	for _, o := range []struct{ flag, v string }{{"partition", j.Partition}, {"time", j.Time}, {"mem", j.Mem}, {"account", j.Account}} {
		if o.v != "" {
			line("--" + o.flag + "=" + o.v)
		}
	}
	for _, e := range j.Extra {
		line(e)
	}
}

// command renders repro sub FILE… --profile P --results DIR [--data-dir D].
func (j *Job) command(sub string) string {
	args := []string{Quote(j.Repro), sub}
	for _, f := range j.Files {
		args = append(args, Quote(f))
	}
	if j.Profile != "" {
		args = append(args, "--profile", Quote(j.Profile))
	}
	args = append(args, "--results", Quote(j.Results))
	if j.DataDir != "" {
		args = append(args, "--data-dir", Quote(j.DataDir))
	}
	return strings.Join(args, " ")
}

// what names the files and profile in the scripts' comments, quoted as
// in the commands.
func (j *Job) what() string {
	var fs []string
	for _, f := range j.Files {
		fs = append(fs, Quote(f))
	}
	s := strings.Join(fs, " ")
	if j.Profile != "" {
		s += " (profile " + Quote(j.Profile) + ")"
	}
	return s
}

// task body lines shared by both scripts: the thread count follows the
// CPUs Slurm gave, whatever the node's core count.
const cpusLine = "C=\"${SLURM_CPUS_PER_TASK:-1}\"\nexport GOMAXPROCS=\"$C\"\n"

// PrepareScript is the batch script of the job that computes the shared
// artefacts of the cells (repro prepare); the error is Validate's.
func (j *Job) PrepareScript() ([]byte, error) {
	if err := j.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "# Computes the shared artefacts (references, MAP points) of %s once,\n# before the job array over its %d cells runs.\n", j.what(), j.Cells)
	j.header(&b, j.Name+"-prepare", outputPattern(j.Logs, "%x-%j.out"))
	b.WriteString("set -euo pipefail\n")
	b.WriteString(cpusLine)
	b.WriteString("exec " + j.command("prepare") + " -j \"$C\"\n")
	return b.Bytes(), nil
}

// ArrayScript is the batch script of the job array: task t runs the cells
// TaskCells(t); the error is Validate's.
func (j *Job) ArrayScript() ([]byte, error) {
	if err := j.Validate(); err != nil {
		return nil, err
	}
	tasks := j.Tasks
	if tasks == nil {
		for t := range j.NumTasks() {
			tasks = append(tasks, t)
		}
	}
	var b bytes.Buffer
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "# Runs the %d cells of %s,\n# %d per array task, into one shared results directory.\n",
		j.Cells, j.what(), max(1, j.CellsPerTask))
	j.header(&b, j.Name, outputPattern(j.Logs, "%x-%A_%a.out"))
	b.WriteString("#SBATCH --array=" + ArraySpec(tasks) + "\n")
	b.WriteString("set -euo pipefail\n")
	fmt.Fprintf(&b, "K=%d N=%d\n", max(1, j.CellsPerTask), j.Cells)
	b.WriteString("A=$((SLURM_ARRAY_TASK_ID * K))\nB=$((A + K - 1))\nif [ \"$B\" -ge \"$N\" ]; then B=$((N - 1)); fi\n")
	b.WriteString(cpusLine)
	b.WriteString("exec " + j.command("run") + " --cells \"$A-$B\" -j \"$C\"\n")
	return b.Bytes(), nil
}

// Submit submits the batch script at path with sbatch --parsable, after
// the job dependency (an id, "" for none) has succeeded, and returns the
// new job's id.
func Submit(ctx context.Context, path, dependency string) (string, error) {
	args := []string{"--parsable"}
	if dependency != "" {
		args = append(args, "--dependency=afterok:"+dependency)
	}
	args = append(args, path)
	cmd := exec.CommandContext(ctx, "sbatch", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("sbatch %s: %s", path, msg)
	}
	// --parsable prints "id" or "id;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if id == "" {
		return "", errors.New("sbatch " + path + ": no job id in its output")
	}
	return id, nil
}
