package repro

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Cells run with --set are current to plot and report given the same
// --set, as to status: not orphaned (a split the file does not have) nor
// stale.
func TestReportTakesSet(t *testing.T) {
	t.Setenv(dataEnv, "")
	tmp := t.TempDir()
	file := filepath.Join(tmp, "rff.toml")
	results, figures := filepath.Join(tmp, "results"), filepath.Join(tmp, "figures")
	if err := os.WriteFile(file, []byte(tinyRFF), 0o644); err != nil {
		t.Fatal(err)
	}
	set := []string{"--set", "splits=[2]"}
	main := func(args ...string) (int, string, string) {
		var out, msg bytes.Buffer
		code := Main(context.Background(), testRegistry(), args, &out, &msg)
		return code, out.String(), msg.String()
	}
	if code, _, msg := main(append([]string{"run", file, "--results", results, "-j", "1"}, set...)...); code != 0 {
		t.Fatalf("run: %d\n%s", code, msg)
	}
	if code, out, msg := main(append([]string{"status", file, "--results", results}, set...)...); code != 0 || !strings.Contains(out, "3 cells: 3 done") {
		t.Errorf("status --set: %d\n%s%s", code, out, msg)
	}
	for _, cmd := range []string{"plot", "report"} {
		args := []string{cmd, file, "--results", results, "--figures", figures}
		if cmd == "report" {
			args = append(args, "--out", filepath.Join(tmp, "REPORT.md"))
		}
		code, _, msg := main(append(args, set...)...)
		if code != 0 || strings.Contains(msg, "ignored") {
			t.Errorf("%s --set: exit %d\n%s", cmd, code, msg)
		}
		if cmd == "report" {
			b, err := os.ReadFile(filepath.Join(tmp, "REPORT.md"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "orphaned") || !strings.Contains(string(b), "Cells: 3 (3 done") {
				t.Errorf("report --set:\n%s", b)
			}
		}
		// Without the --set, the cells it added (split 2) are kept apart
		// from the file's own, and the command says where.
		code, _, msg = main(args...)
		if !strings.Contains(msg, "3 result files of runs with --set kept apart under") {
			t.Errorf("%s without --set: exit %d, the cells kept apart not said\n%s", cmd, code, msg)
		}
	}
}
