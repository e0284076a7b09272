package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A run's own outputs in a checkout (results, figures, the report) do not
// make its code "dirty"; a changed source file does.
func TestOutputsAreNotUncommittedCode(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the build information is used instead")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	for _, f := range []string{"code.go", "results/full/e/m/d/s0.csv", "figures/f.png", "REPORT.md"} {
		write(f, "a\n")
	}
	git("add", ".")
	git("commit", "-q", "-m", "x")
	status := func() string {
		return strings.TrimSpace(git(append([]string{"status", "--porcelain", "--untracked-files=no", "--"}, outputPathspecs...)...))
	}
	for _, f := range []string{"results/full/e/m/d/s0.csv", "figures/f.png", "REPORT.md"} {
		write(f, "b\n")
	}
	if s := status(); s != "" {
		t.Errorf("outputs count as uncommitted code: %q", s)
	}
	write("code.go", "b\n")
	if s := status(); !strings.Contains(s, "code.go") || strings.Contains(s, "results") {
		t.Errorf("a changed source file: status %q", s)
	}
}
