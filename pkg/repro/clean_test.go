package repro

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// snapshot returns every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// clean never enters a linked profile folder: with the results of a
// profile moved out of the results directory and linked back, nothing
// outside is removed, though its stale and orphaned files are there.
func TestCleanDoesNotFollowLinkedProfile(t *testing.T) {
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
	outside := filepath.Join(tmp, "elsewhere")
	if err := os.Rename(filepath.Join(results, "base"), outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(results, "base")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	// Remove a method and change another: orphans and stale cells, all
	// behind the link.
	now := tinyRFF[:strings.Index(tinyRFF, "[methods.mmdfw-rff-d20]")]
	now = strings.Replace(now, "seed = ", "seed = 1", 1)
	if err := os.WriteFile(file, []byte(now), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, outside)
	dry := stdout(t, func() error { return cleanCmd(testCLI(), []string{file, "--results", results}) })
	if dry != "" {
		t.Errorf("the dry run lists files behind a link:\n%s", dry)
	}
	out := stdout(t, func() error { return cleanCmd(testCLI(), []string{file, "--results", results, "--yes"}) })
	if out != "" {
		t.Errorf("clean --yes:\n%s", out)
	}
	if after := snapshot(t, outside); len(after) != len(before) || len(before) == 0 {
		t.Errorf("clean removed files outside the results directory: %d files before, %d after", len(before), len(after))
	}
}

// clean removes only this program's own result files, and its dry run
// lists exactly what --yes removes.
func TestCleanRemovesOnlyOwnResults(t *testing.T) {
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
	exp := filepath.Join(results, "base", "rff")
	// Files that are not results of this program, where orphans would be.
	foreign := map[string]string{
		filepath.Join(exp, "notes.json"):              `{"hello": "world"}`,
		filepath.Join(exp, "mmdfw-rbf", "table.csv"):  "a,b\n1,2\n",
		filepath.Join(exp, "mmdfw-rbf", "empty.json"): "",
	}
	for p, content := range foreign {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link to a file outside, named as an orphaned result.
	outside := filepath.Join(tmp, "precious.csv")
	if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(exp, "mmdfw-rbf", "gauss2d", "s1", "n99.csv")
	if err := os.Symlink(outside, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	now := tinyRFF[:strings.Index(tinyRFF, "[methods.mmdfw-rff-d20]")]
	if err := os.WriteFile(file, []byte(now), 0o644); err != nil {
		t.Fatal(err)
	}
	listed := func(out string) []string {
		var ps []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l == "" {
				continue
			}
			for _, f := range strings.Fields(l) {
				if filepath.IsAbs(f) {
					ps = append(ps, f)
					break
				}
			}
		}
		sort.Strings(ps)
		return ps
	}
	dry := listed(stdout(t, func() error { return cleanCmd(testCLI(), []string{file, "--results", results}) }))
	want := []string{
		filepath.Join(exp, "mmdfw-rff-d20", "gauss2d", "s1", "n8.csv"),
		filepath.Join(exp, "mmdfw-rff-d20", "gauss2d", "s1", "n8.json"),
	}
	if strings.Join(dry, " ") != strings.Join(want, " ") {
		t.Errorf("dry run lists %q, want %q", dry, want)
	}
	yes := listed(stdout(t, func() error { return cleanCmd(testCLI(), []string{file, "--results", results, "--yes"}) }))
	if strings.Join(yes, " ") != strings.Join(dry, " ") {
		t.Errorf("--yes removed %q, the dry run listed %q", yes, dry)
	}
	for _, p := range want {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s not removed (%v)", p, err)
		}
	}
	for p, content := range foreign {
		if b, err := os.ReadFile(p); err != nil || string(b) != content {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "keep" {
		t.Errorf("the linked file: %q, %v", b, err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("the link was removed: %v", err)
	}
}
