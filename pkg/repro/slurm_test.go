package repro

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeStub writes an executable shell script.
func writeStub(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A control character in any value repro slurm writes into a script is a
// usage error naming the flag (or the experiment file) and the value,
// before anything is written; nothing panics.
func TestSlurmRefusesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "judged.toml")
	bad := filepath.Join(dir, "x\ntouch PWNED\n.toml")
	for _, f := range []string{file, bad} {
		if err := os.WriteFile(f, []byte(judgeTOML), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := filepath.Join(dir, "results")
	for _, tc := range []struct {
		args      []string
		what, val string
	}{
		{[]string{bad}, "experiment file", bad},
		{[]string{file, "--results", res + "\nx"}, "--results", res + "\nx"},
		{[]string{file, "--name", "n\nx"}, "--name", "n\nx"},
		{[]string{file, "--time", "1:00\rtouch PWNED"}, "--time", "1:00\rtouch PWNED"},
		{[]string{file, "--sbatch", "--qos=a\nb"}, "--sbatch", "--qos=a\nb"},
		{[]string{file, "--partition", "p\x1b"}, "--partition", "p\x1b"},
		{[]string{file, "--mem", "4G\x7f"}, "--mem", "4G\x7f"},
		{[]string{file, "--account", "a\u0085"}, "--account", "a\u0085"},
		{[]string{file, "--repro", "/bin/re\npro"}, "--repro", "/bin/re\npro"},
		{[]string{file, "--data-dir", "/d\n"}, "--data-dir", "/d\n"},
		{[]string{file, "--partition", "hetjob"}, "--partition", "hetjob"},
		{[]string{file, "--results", res + `\x`}, "--results", res + `\x`},
	} {
		if tc.what != "--results" {
			tc.args = append(tc.args, "--results", res)
		}
		code, stderr := runRepro(t, append([]string{"slurm"}, tc.args...)...)
		if want := fmt.Sprintf("%s %q: ", tc.what, tc.val); code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "panic") {
			t.Errorf("repro slurm %q: exit %d\n%s\nwant exit 2 and %q", tc.args, code, stderr, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("refused commands wrote into %s: %v", dir, ents)
	}
}

// Values that a shell or sbatch would read as syntax reach the jobs as
// they were given: repro slurm --submit writes the scripts and submits
// them through a stub sbatch; the scripts run under bash with a stub
// repro, which receives exactly its arguments, and no injected command
// runs.
func TestSlurmHostileValues(t *testing.T) {
	dir := t.TempDir()
	exp := filepath.Join(dir, "exp $(touch PWNED) `touch PWNED`; it's \"q\" #x")
	if err := os.Mkdir(exp, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(exp, "judged.toml")
	if err := os.WriteFile(file, []byte(judgeTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "res $(touch PWNED) 'q' %j")
	data := filepath.Join(dir, "data `touch PWNED` $HOME")
	stub := filepath.Join(dir, "re pro; touch PWNED")
	writeStub(t, stub, "for a in \"$@\"; do printf '%s\\n' \"$a\"; done\n")
	bin := t.TempDir()
	record := filepath.Join(bin, "sbatch.args")
	writeStub(t, filepath.Join(bin, "sbatch"), "for a in \"$@\"; do printf '%s\\n' \"$a\"; done >>'"+record+"'\necho 77\n")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	name := `job $(touch PWNED) "n" #c`
	code, stderr := runRepro(t, "slurm", file, "--results", res, "--data-dir", data, "--repro", stub,
		"--name", name, "--time", "1:00 `touch PWNED`", "--sbatch", "--comment=a b; touch PWNED", "--submit")
	if code != 0 {
		t.Fatalf("repro slurm: exit %d\n%s", code, stderr)
	}
	prep, array := filepath.Join(res, ".slurm", "judged-prepare.sh"), filepath.Join(res, ".slurm", "judged.sh")
	b, err := os.ReadFile(record)
	if want := strings.Join([]string{"--parsable", prep, "--parsable", "--dependency=afterok:77", array}, "\n") + "\n"; err != nil || string(b) != want {
		t.Errorf("sbatch received\n%s(%v), want\n%s", b, err, want)
	}
	if _, err := os.Stat(filepath.Join(res, ".slurm", "logs")); err != nil {
		t.Errorf("log directory: %v", err)
	}
	for _, tc := range []struct {
		script string
		env    []string
		want   []string
	}{
		{prep, []string{"SLURM_CPUS_PER_TASK=2"}, []string{"prepare", file, "--results", res, "--data-dir", data, "-j", "2"}},
		{array, []string{"SLURM_ARRAY_TASK_ID=1", "SLURM_CPUS_PER_TASK=1"}, []string{"run", file, "--results", res, "--data-dir", data, "--cells", "1-1", "-j", "1"}},
	} {
		work := t.TempDir()
		cmd := exec.Command("bash", tc.script)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), tc.env...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil || errb.Len() > 0 {
			t.Fatalf("%s: %v\n%s", tc.script, err, errb.Bytes())
		}
		if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s runs repro\n%q, want\n%q", filepath.Base(tc.script), got, tc.want)
		}
		if ents, _ := os.ReadDir(work); len(ents) > 0 {
			t.Errorf("%s created %s", filepath.Base(tc.script), ents[0].Name())
		}
	}
	for _, d := range []string{".", dir, exp} {
		if _, err := os.Stat(filepath.Join(d, "PWNED")); err == nil {
			t.Errorf("an injected command ran: %s", filepath.Join(d, "PWNED"))
		}
	}
}
