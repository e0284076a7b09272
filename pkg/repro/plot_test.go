package repro

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tinyRFF is an rff experiment small enough to run in a test: three MMD-FW
// methods on the 2-d Gaussian target.
const tinyRFF = `
id = "rff"
seed = 1
datasets = ["gauss2d"]
splits = [1]
[eval]
metrics = ["mmd2"]
[[figures]]
id = "rff"
x = "particles"
y = "mmd2_exact"
fallback = "mmd2"
fit = "rate"
own_kernel = true
[methods.mmdfw-rbf]
kind = "mmdfw"
particles = [8]
settings = { start = "map", raw_weights = true }
[methods.mmdfw-rff-d50]
kind = "mmdfw"
particles = [8]
settings = { start = "map", raw_weights = true, kernel = "rff", features = 50 }
[methods.mmdfw-rff-d20]
kind = "mmdfw"
particles = [8]
settings = { start = "map", raw_weights = true, kernel = "rff", features = 20 }
`

// After a run, a setting of one method changes (its result is stale) and
// another method is removed (its result is orphaned): plot and report use
// the current result only and the report lists the other two.
func TestPlotAndReportUseCurrentResults(t *testing.T) {
	t.Setenv(dataEnv, "")
	tmp := t.TempDir()
	file := filepath.Join(tmp, "rff.toml")
	results := filepath.Join(tmp, "results")
	if err := os.WriteFile(file, []byte(tinyRFF), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runCmd(testCLI(), []string{file, "--results", results, "-j", "1"}); err != nil {
		t.Fatal(err)
	}
	now := strings.Replace(tinyRFF, "features = 50 }", "features = 50, noise = 0.4 }", 1)
	now = now[:strings.Index(now, "[methods.mmdfw-rff-d20]")]
	if err := os.WriteFile(file, []byte(now), 0o644); err != nil {
		t.Fatal(err)
	}
	figures := filepath.Join(tmp, "figures")
	if err := plotCmd(testCLI(), []string{"--results", results, "--figures", figures, "--experiments", filepath.Join(tmp, "*.toml")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(figures, "rff.png")); err != nil {
		t.Error(err)
	}
	out := filepath.Join(tmp, "REPORT.md")
	if err := reportCmd(testCLI(), []string{file, "--results", results, "--figures", figures, "--out", out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, s := range []string{
		"Cells: 1 (1 done, 0 failed, 0 skipped)",
		"2 stale or orphaned result files ignored (1 stale",
		"`rff/mmdfw-rff-d20/gauss2d/s1/n8` (orphaned)", "`rff/mmdfw-rff-d50/gauss2d/s1/n8` (stale)",
		"| mmdfw-rbf |",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("report lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "| mmdfw-rff-d50 |") || strings.Contains(text, "| mmdfw-rff-d20 |") {
		t.Errorf("the claim-2 table uses a result that is not current:\n%s", text)
	}
	// Without any current result there is nothing to plot.
	if err := os.WriteFile(file, []byte(now[:strings.Index(now, "[methods.mmdfw-rbf]")]+"[methods.other]\nkind = \"mmdfw\"\nparticles = [8]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := plotCmd(testCLI(), []string{file, "--results", results, "--figures", figures}); err == nil || !strings.Contains(err.Error(), "no current results") {
		t.Errorf("plot with no current result: %v", err)
	}
}

func TestExperimentFiles(t *testing.T) {
	tmp := t.TempDir()
	for _, n := range []string{"a.toml", "b.toml", "c.txt"} {
		if err := os.WriteFile(filepath.Join(tmp, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := experimentFiles(nil, filepath.Join(tmp, "*.toml"))
	if want := []string{filepath.Join(tmp, "a.toml"), filepath.Join(tmp, "b.toml")}; err != nil || !slices.Equal(got, want) {
		t.Errorf("glob: %v, %v; want %v", got, err, want)
	}
	if got, err := experimentFiles([]string{"x.toml"}, filepath.Join(tmp, "*.toml")); err != nil || !slices.Equal(got, []string{"x.toml"}) {
		t.Errorf("named files: %v, %v; want [x.toml]", got, err)
	}
	if _, err := experimentFiles(nil, filepath.Join(tmp, "*.none")); err == nil {
		t.Error("a glob matching nothing is not an error")
	}
	// The default is the project's experiment files.
	files, err := experimentFiles(nil, filepath.Join("..", "..", defaultExperiments))
	if err != nil || !slices.Contains(files, filepath.Join("..", "..", "experiments", "rff.toml")) {
		t.Errorf("default experiments: %v, %v", files, err)
	}
}

// An experiment whose file declares no figures is drawn with the default
// figures, and repro plot says so, naming them.
func TestPlotListsUndeclared(t *testing.T) {
	t.Setenv(dataEnv, "")
	tmp := t.TempDir()
	file := filepath.Join(tmp, "rff.toml")
	results := filepath.Join(tmp, "results")
	src := tinyRFF[:strings.Index(tinyRFF, "[[figures]]")] + tinyRFF[strings.Index(tinyRFF, "[methods.mmdfw-rbf]"):]
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runCmd(testCLI(), []string{file, "--results", results, "-j", "1"}); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	figures := filepath.Join(tmp, "figures")
	perr := plotCmd(testCLI(), []string{file, "--results", results, "--figures", figures})
	w.Close()
	os.Stderr = old
	msg := <-done
	if perr != nil {
		t.Fatal(perr)
	}
	if !strings.Contains(msg, "experiment rff declares no [[figures]]") || !strings.Contains(msg, "rff-mmd2") {
		t.Errorf("repro plot does not list the undeclared experiment:\n%s", msg)
	}
	if _, err := os.Stat(filepath.Join(figures, "rff-mmd2.png")); err != nil {
		t.Error(err)
	}
}
