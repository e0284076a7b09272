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
	// Without the override, the cell it changed is stale, with the reason.
	out = stdout(t, func() error { return listCmd(testCLI(), []string{file, "--results", results, "--json"}) })
	cells = nil
	if err := json.Unmarshal([]byte(out), &cells); err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		rbf := strings.Contains(c.ID, "/mmdfw-rbf/")
		if rbf && (c.Status != "stale" || !strings.Contains(c.Reason, "settings.noise") || !strings.Contains(c.Reason, "0.25") || c.Key == c.RecordedKey) {
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
	if len(st.Files) != 1 || st.Files[0].Counts != st.Total || st.Total.Done != 2 || st.Total.Stale != 1 || len(st.Files[0].Cells) != 3 {
		t.Errorf("status --json: %+v", st)
	}
	// Remove a method: its files become orphans. clean lists the stale
	// cell's files and the orphans, and removes them only with --yes.
	now := tinyRFF[:strings.Index(tinyRFF, "[methods.mmdfw-rff-d20]")]
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
}
