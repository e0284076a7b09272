package slurm

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestTasks(t *testing.T) {
	u := []bool{false, false, true, false, false, false, true, true, false, true}
	for _, tc := range []struct {
		k    int
		want []int
	}{
		{1, []int{2, 6, 7, 9}},
		{2, []int{1, 3, 4}},
		{3, []int{0, 2, 3}},
		{10, []int{0}},
		{0, []int{2, 6, 7, 9}},
	} {
		if got := Tasks(u, tc.k); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Tasks(k=%d) = %v, want %v", tc.k, got, tc.want)
		}
	}
	if got := Tasks(make([]bool, 5), 2); got != nil {
		t.Errorf("Tasks of finished cells = %v", got)
	}
}

func TestArraySpec(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{4}, "4"},
		{[]int{0, 1, 2, 5, 7, 8}, "0-2,5,7-8"},
		{[]int{1, 3, 5}, "1,3,5"},
		{[]int{0, 1}, "0-1"},
	} {
		if got := ArraySpec(tc.in); got != tc.want {
			t.Errorf("ArraySpec(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, s := range []string{"", "plain/path-1.toml", "with space", "it's", "$HOME", "a;b", "`x`", "\"q\""} {
		out, err := exec.Command("bash", "-c", "printf %s "+Quote(s)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != s {
			t.Errorf("Quote(%q) = %s, which the shell reads as %q", s, Quote(s), out)
		}
	}
}

// fakeRepro writes an executable that prints its arguments, one a line.
func fakeRepro(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "re pro")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// runScript runs a batch script under bash with the environment Slurm
// would give it and returns the arguments the repro it calls received.
func runScript(t *testing.T, script []byte, env ...string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "job.sh")
	if err := os.WriteFile(path, script, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", path)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.Bytes())
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// mustScript returns the script made by f (j.PrepareScript or
// j.ArrayScript), failing the test on an error.
func mustScript(t *testing.T, f func() ([]byte, error)) []byte {
	t.Helper()
	b, err := f()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testJob(t *testing.T, cells, k int) *Job {
	return &Job{
		Name: "repro-t", Repro: fakeRepro(t), Files: []string{"/x/a b.toml", "/x/c.toml"}, Profile: "quick",
		Results: "/shared/res", Dir: "/x", Logs: "/shared/res/.slurm/logs",
		Cells: cells, CellsPerTask: k, CPUsPerTask: 3, Partition: "short", Time: "1:00:00",
		Extra: []string{"--qos=low"},
	}
}

// TestArrayScriptCoversEveryCell runs the array script for each task, as
// Slurm would, and checks that the tasks' --cells ranges cover 0…N−1 once.
func TestArrayScriptCoversEveryCell(t *testing.T) {
	for _, tc := range []struct{ n, k int }{{10, 3}, {9, 3}, {1, 4}, {7, 1}} {
		j := testJob(t, tc.n, tc.k)
		script := mustScript(t, j.ArrayScript)
		if out, err := exec.Command("bash", "-n", "-c", string(script)).CombinedOutput(); err != nil {
			t.Fatalf("syntax: %v %s", err, out)
		}
		want := "#SBATCH --array=0-" + strconv.Itoa(j.NumTasks()-1) + "\n"
		if j.NumTasks() == 1 {
			want = "#SBATCH --array=0\n"
		}
		if !bytes.Contains(script, []byte(want)) {
			t.Errorf("n=%d k=%d: no %q in\n%s", tc.n, tc.k, want, script)
		}
		seen := make([]int, tc.n)
		for task := range j.NumTasks() {
			args := runScript(t, script, "SLURM_ARRAY_TASK_ID="+strconv.Itoa(task), "SLURM_CPUS_PER_TASK=3")
			wantArgs := []string{"run", "/x/a b.toml", "/x/c.toml", "--profile", "quick", "--results", "/shared/res", "--cells", "", "-j", "3"}
			lo, hi := j.TaskCells(task)
			wantArgs[8] = strconv.Itoa(lo) + "-" + strconv.Itoa(hi)
			if !reflect.DeepEqual(args, wantArgs) {
				t.Fatalf("n=%d k=%d task %d: repro got %q, want %q", tc.n, tc.k, task, args, wantArgs)
			}
			for i := lo; i <= hi; i++ {
				seen[i]++
			}
		}
		for i, s := range seen {
			if s != 1 {
				t.Errorf("n=%d k=%d: cell %d run by %d tasks", tc.n, tc.k, i, s)
			}
		}
	}
}

func TestScripts(t *testing.T) {
	j := testJob(t, 10, 3)
	j.Tasks = []int{0, 2, 3}
	array := string(mustScript(t, j.ArrayScript))
	for _, line := range []string{
		"#SBATCH --job-name=repro-t\n", "#SBATCH --array=0,2-3\n", "#SBATCH --cpus-per-task=3\n",
		"#SBATCH --partition=short\n", "#SBATCH --time=1:00:00\n", "#SBATCH --qos=low\n",
		"#SBATCH --chdir=/x\n", "#SBATCH --output=/shared/res/.slurm/logs/%x-%A_%a.out\n",
	} {
		if !strings.Contains(array, line) {
			t.Errorf("array script lacks %q:\n%s", line, array)
		}
	}
	// sbatch reads options only before the first command.
	if i, k := strings.LastIndex(array, "#SBATCH"), strings.Index(array, "set -euo"); i > k {
		t.Errorf("an #SBATCH line follows a command:\n%s", array)
	}
	prep := mustScript(t, j.PrepareScript)
	if !bytes.Contains(prep, []byte("#SBATCH --job-name=repro-t-prepare\n")) || bytes.Contains(prep, []byte("--array")) {
		t.Errorf("prepare script:\n%s", prep)
	}
	args := runScript(t, prep, "SLURM_CPUS_PER_TASK=2")
	want := []string{"prepare", "/x/a b.toml", "/x/c.toml", "--profile", "quick", "--results", "/shared/res", "-j", "2"}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("prepare runs repro %q, want %q", args, want)
	}
	// The data folder, when given, reaches both jobs' command lines.
	j.DataDir = "/shared/data dir"
	args = runScript(t, mustScript(t, j.PrepareScript), "SLURM_CPUS_PER_TASK=2")
	want = []string{"prepare", "/x/a b.toml", "/x/c.toml", "--profile", "quick", "--results", "/shared/res", "--data-dir", "/shared/data dir", "-j", "2"}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("with DataDir, prepare runs repro %q, want %q", args, want)
	}
}

// TestSubmit submits through a fake sbatch on PATH that records its
// arguments and answers as sbatch --parsable does.
func TestSubmit(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "args")
	sbatch := "#!/bin/sh\necho \"$@\" >>" + Quote(record) + "\nif [ \"$2\" = bad ]; then echo 'sbatch: error: Batch job submission failed' >&2; exit 1; fi\necho '4242;cluster'\n"
	if err := os.WriteFile(filepath.Join(dir, "sbatch"), []byte(sbatch), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	id, err := Submit(context.Background(), "a.sh", "")
	if err != nil || id != "4242" {
		t.Fatalf("Submit = %q, %v", id, err)
	}
	if _, err := Submit(context.Background(), "b.sh", "4242"); err != nil {
		t.Fatal(err)
	}
	if _, err := Submit(context.Background(), "bad", ""); err == nil || !strings.Contains(err.Error(), "submission failed") {
		t.Errorf("failed submission: %v", err)
	}
	b, _ := os.ReadFile(record)
	if want := "--parsable a.sh\n--parsable --dependency=afterok:4242 b.sh\n--parsable bad\n"; string(b) != want {
		t.Errorf("sbatch got\n%s\nwant\n%s", b, want)
	}
}
