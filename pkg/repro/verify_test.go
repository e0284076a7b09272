package repro

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// repro verify recomputes a sample of done cells into a scratch folder,
// finds their CSVs identical, records the outcome, and the report states
// it; compareCSV finds a changed value and ignores a changed time.
func TestVerify(t *testing.T) {
	t.Setenv(dataEnv, "")
	tmp := t.TempDir()
	file := filepath.Join(tmp, "rff.toml")
	results := filepath.Join(tmp, "results")
	if err := os.WriteFile(file, []byte(tinyRFF), 0o644); err != nil {
		t.Fatal(err)
	}
	main := func(args ...string) (int, string, string) {
		var out, msg bytes.Buffer
		code := Main(context.Background(), testRegistry(), args, &out, &msg)
		return code, out.String(), msg.String()
	}
	if code, _, msg := main("run", file, "--results", results, "-j", "1"); code != 0 {
		t.Fatalf("run: %d\n%s", code, msg)
	}
	// Its cells read a reference sample: left out unless --references.
	if code, _, msg := main("verify", file, "--results", results); code != 1 || !strings.Contains(msg, "no done cell fits the sample (0 done cells without references") {
		t.Errorf("verify without --references: exit %d\n%s", code, msg)
	}
	code, out, msg := main("verify", file, "--results", results, "--sample", "2", "--seed", "3", "--references", "--record", "-j", "1")
	if code != 0 || !strings.Contains(out, "2 of 2 sampled cells recomputed identical at") || strings.Count(out, "identical  rff/") != 2 {
		t.Fatalf("verify: exit %d\n%s%s", code, out, msg)
	}
	b, err := os.ReadFile(report.VerifyFile(results, ""))
	if err != nil {
		t.Fatal(err)
	}
	var rec report.VerifyRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Identical != 2 || rec.Sampled != 2 || rec.Pool != 3 || rec.Seed != 3 {
		t.Errorf("record %+v (%v)", rec, err)
	}
	// The same seed draws the same sample.
	if _, again, _ := main("verify", file, "--results", results, "--sample", "2", "--seed", "3", "--references", "-j", "1"); lines(again) != lines(out) {
		t.Errorf("seed 3 twice:\n%s\n%s", out, again)
	}
	out = filepath.Join(tmp, "REPORT.md")
	if code, _, msg := main("report", file, "--results", results, "--figures", filepath.Join(tmp, "fig"), "--out", out); code != 0 {
		t.Fatalf("report: %d\n%s", code, msg)
	}
	rep, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rep), "Reproducible from the code (`repro verify`): base profile: 2 of 2 cells drawn at random (seed 3) from its 3 done cells") {
		t.Errorf("the report does not state the verification:\n%s", rep)
	}

	a := filepath.Join(tmp, "a.csv")
	c := filepath.Join(tmp, "c.csv")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "step,compute_seconds,metric,value\n1,0.5,mmd2,0.25\n")
	write(c, "step,compute_seconds,metric,value\n1,0.7,mmd2,0.25\n")
	if d, err := compareCSV(a, c); d != "" || err != nil {
		t.Errorf("a changed time: %q %v", d, err)
	}
	write(c, "step,compute_seconds,metric,value\n1,0.5,mmd2,0.26\n")
	if d, err := compareCSV(a, c); d != "row 1, value: 0.25, recomputed 0.26" || err != nil {
		t.Errorf("a changed value: %q %v", d, err)
	}
}

// A timed cell's recomputation is compared at the (step, metric) pairs
// both runs evaluated: its grid in seconds moves with the machine's speed,
// its values at a step do not.
func TestCompareTimedCSV(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	head := "step,compute_seconds,metric,value\n"
	a := write("a.csv", head+"1,0.1,acc,0.5\n5,1.0,acc,0.7\n9,2.0,acc,0.8\n")
	b := write("b.csv", head+"1,0.2,acc,0.5\n4,0.9,acc,0.65\n9,1.9,acc,0.8\n12,3.0,acc,0.85\n")
	if d, err := compareTimedCSV(a, b); d != "" || err != nil {
		t.Errorf("another grid, the same values at steps 1 and 9: %q %v", d, err)
	}
	if d, _ := compareCSV(a, b); d == "" {
		t.Error("compareCSV takes another grid as identical")
	}
	c := write("c.csv", head+"9,2.0,acc,0.81\n")
	if d, err := compareTimedCSV(a, c); d != "step 9, acc, value: 0.8, recomputed 0.81" || err != nil {
		t.Errorf("a value changed at a shared step: %q %v", d, err)
	}
	e := write("e.csv", head+"2,0.2,acc,0.5\n")
	if d, err := compareTimedCSV(a, e); d != "no (step, metric) pair in common" || err != nil {
		t.Errorf("no shared step: %q %v", d, err)
	}
}

// lines returns the cell lines of verify's output, sorted as printed.
func lines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "identical") || strings.HasPrefix(l, "differs") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
