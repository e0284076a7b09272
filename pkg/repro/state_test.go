package repro

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stdout runs f with os.Stdout captured and returns what it printed.
func stdout(t *testing.T, f func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	ferr := f()
	w.Close()
	os.Stdout = old
	out := <-done
	if ferr != nil {
		t.Fatal(ferr)
	}
	return out
}

// An override run, then list/status --json with and without the override,
// and clean of the stale and orphaned files.
func TestOverrideJSONAndClean(t *testing.T) {
	t.Setenv(dataEnv, "")
	tmp := t.TempDir()
	file := filepath.Join(tmp, "rff.toml")
	results := filepath.Join(tmp, "results")
	if err := os.WriteFile(file, []byte(tinyRFF), 0o644); err != nil {
		t.Fatal(err)
	}
	set := "methods.mmdfw-rbf.settings.noise=0.25"
	if err := runCmd(testCLI(), []string{file, "--results", results, "-j", "1", "--set", set}); err != nil {
		t.Fatal(err)
	}
	var cells []cellJSON
	out := stdout(t, func() error {
		return listCmd(testCLI(), []string{file, "--results", results, "--json", "--set", set})
	})
	if err := json.Unmarshal([]byte(out), &cells); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(cells) != 3 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, c := range cells {
		if c.Status != "done" || c.Key != c.RecordedKey || c.Reason != "" || !c.Results.Present ||
			strings.Join(c.Overrides, " ") != set || strings.Join(c.RecordedOverrides, " ") != set {
			t.Errorf("with the override: %+v", c)
		}
		if _, err := os.Stat(c.Results.CSV); err != nil {
			t.Error(err)
		}
	}
	// The cell the override changed lives apart from the file's own
	// (rff@<hash>); the two it left as the file has them are the file's.
	var apartCSV string
	for _, c := range cells {
		rbf := strings.Contains(c.ID, "/mmdfw-rbf/")
		if apart := strings.Contains(c.Results.CSV, string(filepath.Separator)+"rff@"); apart != rbf {
			t.Errorf("with the override: %s at %s", c.ID, c.Results.CSV)
		} else if apart {
			apartCSV = c.Results.CSV
		}
	}
	// Without the override, the file's own cell is pending: the
	// override's run did not replace it.
	out = stdout(t, func() error { return listCmd(testCLI(), []string{file, "--results", results, "--json"}) })
	cells = nil
	if err := json.Unmarshal([]byte(out), &cells); err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		rbf := strings.Contains(c.ID, "/mmdfw-rbf/")
		if rbf && (c.Status != "pending" || c.Results.Present || strings.Contains(c.Results.CSV, "rff@")) {
			t.Errorf("without the override: %+v", c)
		}
		if !rbf && c.Status != "done" {
			t.Errorf("without the override: %+v", c)
		}
	}
	// status --json: counts per file.
	var st struct {
		Files []fileStatusJSON `json:"files"`
		Total countsJSON       `json:"total"`
	}
	out = stdout(t, func() error { return statusCmd(testCLI(), []string{file, "--results", results, "--json"}) })
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Files) != 1 || st.Files[0].Counts != st.Total || st.Total.Done != 2 || st.Total.Pending != 1 || st.Total.Stale != 0 || len(st.Files[0].Cells) != 3 {
		t.Errorf("status --json: %+v", st)
	}
	// Run the file's own cell, then edit its setting (its result is
	// stale) and remove a method (its files become orphans). clean lists
	// the stale cell's files and the orphans, and removes them only with
	// --yes; the override's folder is not the file's to judge.
	if err := runCmd(testCLI(), []string{file, "--results", results, "-j", "1"}); err != nil {
		t.Fatal(err)
	}
	now := tinyRFF[:strings.Index(tinyRFF, "[methods.mmdfw-rff-d20]")]
	now = strings.Replace(now, `settings = { start = "map", raw_weights = true }`, `settings = { start = "map", raw_weights = true, noise = 0.5 }`, 1)
	if err := os.WriteFile(file, []byte(now), 0o644); err != nil {
		t.Fatal(err)
	}
	out = stdout(t, func() error { return cleanCmd(testCLI(), []string{file, "--results", results}) })
	for _, want := range []string{"mmdfw-rbf/gauss2d/s1/n8.csv (stale: ", "mmdfw-rbf/gauss2d/s1/n8.json (stale", "mmdfw-rff-d20/gauss2d/s1/n8.csv (orphan", "mmdfw-rff-d20/gauss2d/s1/n8.json (orphan"} {
		if !strings.Contains(out, "would remove ") || !strings.Contains(out, want) {
			t.Errorf("clean dry run lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "\n") != 4 {
		t.Errorf("clean dry run lists more than the 4 files:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(results, "base", "rff", "mmdfw-rff-d20", "gauss2d", "s1", "n8.csv")); err != nil {
		t.Fatal("the dry run removed a file")
	}
	stdout(t, func() error { return cleanCmd(testCLI(), []string{file, "--results", results, "--yes"}) })
	out = stdout(t, func() error { return cleanCmd(testCLI(), []string{file, "--results", results}) })
	if out != "" {
		t.Errorf("after clean --yes:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(results, "base", "rff", "mmdfw-rff-d50", "gauss2d", "s1", "n8.csv")); err != nil {
		t.Error("clean removed a current result")
	}
	if _, err := os.Stat(apartCSV); err != nil {
		t.Errorf("clean removed the override's result: %v", err)
	}
}
