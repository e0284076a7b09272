package slurm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sbatchOptions returns the arguments sbatch reads from the #SBATCH lines
// of a batch script, as Slurm's src/sbatch/opt.c does (_opt_batch_script,
// _get_argument): lines are read up to the first one that is neither blank
// nor a comment; the rest of an #SBATCH line is split at blanks, ' and "
// quote, a backslash makes the next character literal (within quotes too),
// and an unquoted '#' ends the line. A line holding "hetjob" or "packjob"
// would start another component of a heterogeneous job: an error here.
func sbatchOptions(script []byte) ([]string, error) {
	var args []string
	for i, line := range strings.Split(string(script), "\n") {
		rest, ok := strings.CutPrefix(line, "#SBATCH")
		if !ok {
			if t := strings.TrimLeft(line, " \t\v\f\r"); t != "" && t[0] != '#' {
				break
			}
			continue
		}
		if l := strings.ToLower(line); strings.Contains(l, "hetjob") || strings.Contains(l, "packjob") {
			return nil, fmt.Errorf("line %d: a heterogeneous job separator in %q", i+1, line)
		}
		p := []byte(rest)
		for {
			for len(p) > 0 && strings.IndexByte(" \t\v\f\r", p[0]) >= 0 {
				p = p[1:]
			}
			if len(p) == 0 {
				break
			}
			var arg []byte
			var q byte
			escape, found := false, false
		word:
			for len(p) > 0 && (q != 0 || strings.IndexByte(" \t\v\f\r", p[0]) < 0) {
				c := p[0]
				switch {
				case escape:
					escape = false
				case c == '\\':
					escape, p = true, p[1:]
					continue
				case q != 0:
					if c == q {
						q, p = 0, p[1:]
						continue
					}
				case c == '"' || c == '\'':
					q, p, found = c, p[1:], true
					continue
				case c == '#':
					p = nil
					break word
				}
				arg, p, found = append(arg, c), p[1:], true
			}
			if q != 0 {
				return nil, fmt.Errorf("line %d: unmatched %c in %q", i+1, q, line)
			}
			if found {
				args = append(args, string(arg))
			}
		}
	}
	return args, nil
}

// expandOutput expands an sbatch --output pattern as slurmd does for a
// batch job: "%%" is '%', %x the job name, %j and %A the job id 42 and %a
// the array task 7.
func expandOutput(pattern, name string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '%' || i+1 == len(pattern) {
			b.WriteByte(pattern[i])
			continue
		}
		i++
		switch pattern[i] {
		case '%':
			b.WriteByte('%')
		case 'x':
			b.WriteString(name)
		case 'j', 'A':
			b.WriteString("42")
		case 'a':
			b.WriteString("7")
		default:
			b.WriteString("%" + pattern[i:i+1])
		}
	}
	return b.String()
}

// hostileJob is a job whose every string holds what a shell or sbatch
// would read as syntax: blanks, quotes, $(), backticks, ';', '&&', '#',
// backslashes, '%' and globs. Each injected command would create the file
// PWNED in the directory the script runs in. Its repro is a stub that
// prints its arguments, one a line.
func hostileJob(t *testing.T) *Job {
	t.Helper()
	dir := t.TempDir()
	repro := filepath.Join(dir, "re'pro $(touch PWNED) `touch PWNED`; touch PWNED \"x\" #y\\z")
	// Arguments may not hold a newline: the test reads them one a line.
	if err := os.WriteFile(repro, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	results := "/r/$(touch PWNED) it's \"q\" %j %% `touch PWNED`"
	return &Job{
		Name:  `n; touch PWNED 'q' "d" #c \e`,
		Repro: repro,
		Files: []string{
			"/e/a b.toml", "/e/$(touch PWNED).toml", "/e/`touch PWNED`.toml", "/e/it's \"q\".toml",
			"/e/x; touch PWNED.toml", "/e/y && touch PWNED #z.toml", "/e/$HOME ${PATH} * ?.toml", "/e/-j 99\\.toml",
		},
		Profile: "q'uick $(touch PWNED)",
		Results: results, Logs: results + "/.slurm/logs",
		Dir:     "/w/y && touch PWNED #z 'it's' \\",
		DataDir: "/d/`touch PWNED` $HOME \\n *",
		Cells:   10, CellsPerTask: 3, CPUsPerTask: 3,
		Partition: `p'a"r`, Time: "1:00 $(touch PWNED)", Mem: "4G;`touch PWNED`", Account: `acc #x \y`,
		Extra: []string{`--comment=a b # c "d" 'e' \f $(touch PWNED)`, "--qos=short"},
	}
}

// runHostile runs a batch script under bash in a fresh directory, with the
// environment Slurm would give it, and returns the arguments the stub repro
// received; it fails the test if the script created anything there.
func runHostile(t *testing.T, script []byte, env ...string) []string {
	t.Helper()
	work := t.TempDir()
	path := filepath.Join(t.TempDir(), "job.sh")
	if err := os.WriteFile(path, script, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", path)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s\n%s", err, stderr.Bytes(), script)
	}
	if stderr.Len() > 0 {
		t.Errorf("the script wrote to stderr: %s", stderr.Bytes())
	}
	if ents, _ := os.ReadDir(work); len(ents) > 0 {
		t.Errorf("the script created %s in its directory:\n%s", ents[0].Name(), script)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// Hostile values reach repro and sbatch exactly as given, and no injected
// command runs: the scripts run under bash with a stub repro, and their
// #SBATCH lines are read as sbatch reads them.
func TestHostileValuesStayValues(t *testing.T) {
	j := hostileJob(t)
	j.Tasks = []int{0, 2, 3}
	prep := mustScript(t, j.PrepareScript)
	array := mustScript(t, j.ArrayScript)
	if out, err := exec.Command("bash", "-n", "-c", string(array)).CombinedOutput(); err != nil {
		t.Fatalf("syntax: %v %s", err, out)
	}
	files := []string{"--profile", j.Profile, "--results", j.Results, "--data-dir", j.DataDir}
	files = append(append([]string(nil), j.Files...), files...)

	args := runHostile(t, prep, "SLURM_CPUS_PER_TASK=2")
	if want := append(append([]string{"prepare"}, files...), "-j", "2"); !reflect.DeepEqual(args, want) {
		t.Errorf("prepare runs repro\n%q, want\n%q", args, want)
	}
	args = runHostile(t, array, "SLURM_ARRAY_TASK_ID=2", "SLURM_CPUS_PER_TASK=3")
	if want := append(append([]string{"run"}, files...), "--cells", "6-8", "-j", "3"); !reflect.DeepEqual(args, want) {
		t.Errorf("task 2 runs repro\n%q, want\n%q", args, want)
	}

	common := func(name, output string) []string {
		return []string{
			"--job-name=" + name, "--chdir=" + j.Dir, "--output=" + output, "--ntasks=1", "--cpus-per-task=3",
			"--partition=" + j.Partition, "--time=" + j.Time, "--mem=" + j.Mem, "--account=" + j.Account,
			j.Extra[0], j.Extra[1],
		}
	}
	for _, tc := range []struct {
		what, script, name, output, log string
		extra                           []string
	}{
		{"prepare", string(prep), j.Name + "-prepare", "%x-%j.out", j.Name + "-prepare-42.out", nil},
		{"array", string(array), j.Name, "%x-%A_%a.out", j.Name + "-42_7.out", []string{"--array=0,2-3"}},
	} {
		opts, err := sbatchOptions([]byte(tc.script))
		if err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		want := append(common(tc.name, strings.ReplaceAll(j.Logs, "%", "%%")+"/"+tc.output), tc.extra...)
		if !reflect.DeepEqual(opts, want) {
			t.Errorf("sbatch reads the %s script's options\n%q, want\n%q\n%s", tc.what, opts, want, tc.script)
		}
		// The log file lands in Logs, whatever '%' the path holds.
		out, _ := strings.CutPrefix(opts[2], "--output=")
		if got, want := expandOutput(out, tc.name), j.Logs+"/"+tc.log; got != want {
			t.Errorf("%s: Slurm writes the log to %q, want %q", tc.what, got, want)
		}
	}
}

// A control character in any value, a relative path, "hetjob" in an
// #SBATCH value and a backslash in the log directory are refused by both
// scripts with a *ValueError naming the field and the value; nothing
// panics.
func TestScriptsRefuseValues(t *testing.T) {
	set := map[string]func(j *Job, v string){
		"Name":      func(j *Job, v string) { j.Name = v },
		"Repro":     func(j *Job, v string) { j.Repro = v },
		"Files":     func(j *Job, v string) { j.Files = append(j.Files, v) },
		"Profile":   func(j *Job, v string) { j.Profile = v },
		"Results":   func(j *Job, v string) { j.Results = v },
		"Dir":       func(j *Job, v string) { j.Dir = v },
		"Logs":      func(j *Job, v string) { j.Logs = v },
		"DataDir":   func(j *Job, v string) { j.DataDir = v },
		"Partition": func(j *Job, v string) { j.Partition = v },
		"Time":      func(j *Job, v string) { j.Time = v },
		"Mem":       func(j *Job, v string) { j.Mem = v },
		"Account":   func(j *Job, v string) { j.Account = v },
		"Extra":     func(j *Job, v string) { j.Extra = append(j.Extra, v) },
	}
	type bad struct{ field, v, msg string }
	var cases []bad
	for field := range set {
		for _, c := range []string{"\n", "\r", "\x00", "\t", "\x1b", "\x7f", "\u0085"} {
			cases = append(cases, bad{field, "/x/a" + c + "touch PWNED", "control character"})
		}
	}
	for _, field := range []string{"Repro", "Files", "Results", "Dir", "Logs", "DataDir"} {
		cases = append(cases, bad{field, "rel/path", "not an absolute path"}, bad{field, "-j", "not an absolute path"})
	}
	for _, field := range []string{"Name", "Dir", "Logs", "Partition", "Time", "Mem", "Account", "Extra"} {
		cases = append(cases, bad{field, "/x/my-HetJob", "heterogeneous job"}, bad{field, "/x/packjob", "heterogeneous job"})
	}
	cases = append(cases, bad{"Logs", `/x/a\b`, "backslash"})
	for _, tc := range cases {
		j := testJob(t, 10, 3)
		set[tc.field](j, tc.v)
		for what, f := range map[string]func() ([]byte, error){"PrepareScript": j.PrepareScript, "ArrayScript": j.ArrayScript} {
			b, err := f()
			var ve *ValueError
			if !errors.As(err, &ve) || ve.Field != tc.field || ve.Value != tc.v || !strings.Contains(err.Error(), tc.msg) ||
				!strings.Contains(err.Error(), fmt.Sprintf("%q", tc.v)) {
				t.Errorf("%s with %s = %q: %v, want a *ValueError on %s saying %q", what, tc.field, tc.v, err, tc.field, tc.msg)
			}
			if b != nil {
				t.Errorf("%s with %s = %q wrote a script", what, tc.field, tc.v)
			}
		}
	}
	// What the shell or sbatch would read as syntax is no error.
	if err := hostileJob(t).Validate(); err != nil {
		t.Errorf("hostile but printable job: %v", err)
	}
}
