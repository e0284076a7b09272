package repro

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setTimes rewrites the times of the provenance file at path: the cell
// ran from t0 for wall seconds, waited wait of them, its method's clock
// read compute, and, where refSeconds > 0, its summary names an HMC
// reference of 100 draws in 4 chains that took refSeconds.
func setTimes(t *testing.T, path string, wall, wait, compute, refSeconds, load float64, cpu string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p["start"] = t0.Format(time.RFC3339Nano)
	p["end"] = t0.Add(time.Duration(wall * float64(time.Second))).Format(time.RFC3339Nano)
	p["wait_seconds"] = wait
	p["compute_seconds"] = compute
	p["load_avg"] = map[string]any{"start": load / 2, "end": load}
	p["host"].(map[string]any)["cpu_model"] = cpu
	s, _ := p["summary"].(map[string]any)
	if s == nil {
		s = map[string]any{}
	}
	delete(s, "reference")
	if refSeconds > 0 {
		s["reference"] = map[string]any{"kind": "hmc", "draws": 100, "chains": 4, "bandwidth": 1.0,
			"diagnostics": map[string]any{"seconds": refSeconds}}
	}
	p["summary"] = s
	if b, err = json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// status --times on a constructed results tree: two files whose cells'
// provenance files are given known times. A cell whose wall holds its
// reference's seconds computed it (its own wall excludes them); a
// reference two files share counts once in the total, at its largest
// seconds; a cell without results counts among the cells, not the done.
func TestStatusTimes(t *testing.T) {
	t.Setenv(dataEnv, "")
	tmp := t.TempDir()
	results := filepath.Join(tmp, "results")
	a := filepath.Join(tmp, "a.toml")
	b := filepath.Join(tmp, "b.toml")
	if err := os.WriteFile(a, []byte(tinyRFF), 0o644); err != nil {
		t.Fatal(err)
	}
	// b: the first and last methods of tinyRFF under another id.
	tinyB := strings.Replace(tinyRFF, `id = "rff"`+"\nseed", `id = "rff-b"`+"\nseed", 1)
	tinyB = tinyB[:strings.Index(tinyB, "[methods.mmdfw-rff-d50]")] + tinyB[strings.Index(tinyB, "[methods.mmdfw-rff-d20]"):]
	if err := os.WriteFile(b, []byte(tinyB), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runCmd(testCLI(), []string{a, b, "--results", results, "-j", "1"}); err != nil {
		t.Fatal(err)
	}
	var cells []cellJSON
	out := stdout(t, func() error { return listCmd(testCLI(), []string{a, b, "--results", results, "--json"}) })
	if err := json.Unmarshal([]byte(out), &cells); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	prov := map[string]string{}
	for _, c := range cells {
		prov[c.ID] = c.Results.Provenance
	}
	if len(cells) != 5 || len(prov) != 5 {
		t.Fatalf("cells %v", prov)
	}
	// a: the reference took 100 s in the cell that computed it (wall
	// 110 s: own 10 s) and another run's 80 s is recorded by a cell that
	// read it (wall 5 s); a cell without reference waited 4 of its 20 s.
	setTimes(t, prov["rff/mmdfw-rbf/gauss2d/s1/n8"], 110, 0, 7, 100, 1.5, "CPU A")
	setTimes(t, prov["rff/mmdfw-rff-d50/gauss2d/s1/n8"], 5, 0, 3, 80, 2.5, "CPU A")
	setTimes(t, prov["rff/mmdfw-rff-d20/gauss2d/s1/n8"], 20, 4, 12, 0, 0.5, "CPU B")
	// b: one cell read the same reference, recorded at 90 s; the other
	// has no results.
	setTimes(t, prov["rff-b/mmdfw-rbf/gauss2d/s1/n8"], 30, 0, 25, 90, 3, "CPU B")
	if err := os.Remove(prov["rff-b/mmdfw-rff-d20/gauss2d/s1/n8"]); err != nil {
		t.Fatal(err)
	}
	out = stdout(t, func() error {
		return statusCmd(testCLI(), []string{a, b, "--results", results, "--times"})
	})
	// a: method 7+3+12, own walls 10+5+16, reference 100 s; wall at -j 2
	// max((31+100)/2, 16, 100) = 100 s. b: method 25, own 30, reference
	// 90 s; max((30+90)/2, 30, 90) = 90 s. Total: one reference of 100 s;
	// max((61+100)/2, 100) = 100 s.
	want := `| experiment | cells | done | method s | cell s | references | reference s | wall at -j 2 | max load |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
| rff | 3 | 3 | 22 | 31 | 1 | 100 | 1 min 40 s | 2.5 |
| rff-b | 2 | 1 | 25 | 30 | 1 | 90 | 1 min 30 s | 3.0 |
| **total** | 5 | 4 | 47 | 61 | 1 | 100 | 1 min 40 s | 3.0 |

CPU models of the done cells: CPU A (2 cells), CPU B (2 cells).
`
	if out != want {
		t.Errorf("status --times:\n%s\nwant\n%s", out, want)
	}
	// At one slot, the total is every second: 61 + 100.
	out = stdout(t, func() error {
		return statusCmd(testCLI(), []string{a, b, "--results", results, "--times", "--times-j", "1"})
	})
	if !strings.Contains(out, "| **total** | 5 | 4 | 47 | 61 | 1 | 100 | 2 min 41 s | 3.0 |") {
		t.Errorf("status --times --times-j 1:\n%s", out)
	}
	if err := statusCmd(testCLI(), []string{a, "--results", results, "--times", "--times-j", "0"}); err == nil || !strings.Contains(err.Error(), "--times-j 0") {
		t.Errorf("--times-j 0: %v", err)
	}
}

func TestHMS(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0 s"}, {42.4, "42 s"}, {59.6, "1 min 00 s"}, {725, "12 min 05 s"},
		{3600, "1 h 00 min"}, {3600 + 62*60 - 31, "2 h 01 min"}, {7199, "2 h 00 min"}, {20520, "5 h 42 min"},
	} {
		if got := hms(c.s); got != c.want {
			t.Errorf("hms(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}
