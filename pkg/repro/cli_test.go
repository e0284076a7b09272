package repro

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mmdfw/mmdfw/internal/mirror"
	"github.com/mmdfw/mmdfw/pkg/harness"
)

// mainEnv makes the test binary run realMain on its arguments after "--".
const mainEnv = "REPRO_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		args := os.Args
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		os.Exit(Main(context.Background(), testRegistry(), args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runRepro runs the command in a child process and returns its exit status
// and standard error.
func runRepro(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String()
}

var (
	fig1a = filepath.Join("..", "..", "experiments", "fig1a.toml")
	rff   = filepath.Join("..", "..", "experiments", "rff.toml")
)

// Every usage error exits 2 with a message saying what is wrong.
func TestUsageErrorsExit2(t *testing.T) {
	res := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-j", "0", fig1a, "--results", res}, "-j 0: the number of cells run at once must be at least 1"},
		{[]string{"run", "-j", "-1", fig1a, "--results", res}, "-j -1: the number of cells run at once must be at least 1"},
		{[]string{"run", "--cells", "5-2", fig1a, "--results", res}, "the range is reversed (5 > 2)"},
		{[]string{"run", "--cells", "abc", fig1a, "--results", res}, `"abc" is not a cell index`},
		{[]string{"run", "--cells", "99", fig1a, "--results", res}, "index 99 is past the last cell"},
		{[]string{"run", "--profile", "bogus", fig1a, "--results", res}, `--profile "bogus": want one of quick, full`},
		{[]string{"run", "--no-such-flag", fig1a}, "flag provided but not defined"},
		{[]string{"run"}, "usage: repro run"},
		{[]string{"status", "--no-such-flag", fig1a}, "flag provided but not defined"},
		{[]string{"data", "list", "extra"}, "list takes no arguments"},
		{[]string{"data", "fetch", "--mirror", "/nonexistent-mirror", "--data-dir", t.TempDir()}, "--mirror /nonexistent-mirror: the folder does not exist"},
		{[]string{"report", fig1a, "--results", res, "--out", "/nonexistent-dir/R.md"}, "--out /nonexistent-dir/R.md: the folder /nonexistent-dir does not exist"},
		{[]string{"version", "extra"}, "usage: repro version"},
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand"`},
	} {
		code, stderr := runRepro(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("repro %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

// A data folder that does not exist, is a file or holds none of the
// datasets is an error before any cell starts; status and list judge by
// the recorded checksums instead, and say so.
func TestWrongDataDir(t *testing.T) {
	res := t.TempDir()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	for dir, want := range map[string]string{
		"/nonexistent-data": "data folder /nonexistent-data does not exist",
		file:                "data folder " + file + " is not a directory",
		empty:               "data folder " + empty + " holds none of the datasets the experiments read (covertype)",
	} {
		code, stderr := runRepro(t, "run", rff, "--profile", "quick", "--results", res, "--data-dir", dir)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("run --data-dir %s: exit %d, %q; want 1 and %q", dir, code, stderr, want)
		}
		if ents, _ := os.ReadDir(res); len(ents) != 0 {
			t.Errorf("run --data-dir %s wrote %v", dir, ents)
		}
	}
	code, stderr := runRepro(t, "status", rff, "--profile", "full", "--results", filepath.Join("..", "..", "results"), "--data-dir", "/nonexistent-data")
	if code != 0 || !strings.Contains(stderr, "cells judged by the data checksums their results recorded") {
		t.Errorf("status without data: exit %d, %q", code, stderr)
	}
}

// Two files with one experiment id are an error naming both.
func TestDuplicateIDs(t *testing.T) {
	b, err := os.ReadFile(fig1a)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a.toml"), filepath.Join(dir, "b.toml")
	for _, f := range []string{a, c} {
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stderr := runRepro(t, "list", a, c, "--results", t.TempDir())
	if code != 1 || !strings.Contains(stderr, a+" and "+c+` both define experiment id "fig1a"`) {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// SIGINT stops the run cleanly (finished cells kept, the rest left for
// the next run) and exits 130.
func TestInterruptExits130(t *testing.T) {
	data, ok := mirror.Shared()
	if !ok {
		t.Skip("no staged data folder ../shared/data; skipping")
	}
	res := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "run", fig1a, "--profile", "quick", "-j", "1", "--results", res, "--data-dir", data)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the first cell has finished.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), "cell finished") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("no summary of the interruption:\n%s", stderr.String())
	}
}

// syncBuffer is a bytes.Buffer safe to read while a child writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// No cache key holds a path of this machine: the same data under two
// folders gives every cell, present or missing (Year), the same key.
func TestKeysHoldNoPath(t *testing.T) {
	data, ok := mirror.Shared()
	if !ok {
		t.Skip("no staged data folder ../shared/data; skipping")
	}
	other := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Symlink(data, other); err != nil {
		t.Fatal(err)
	}
	table1 := filepath.Join("..", "..", "experiments", "table1.toml")
	keys := map[string]map[string]string{}
	for _, dir := range []string{data, other} {
		reg := testRegistry()
		cells, err := loadCells(reg, []string{table1}, "full")
		if err != nil {
			t.Fatal(err)
		}
		r := harness.NewRunner(reg, harness.Options{Results: t.TempDir(), DataDir: dir})
		keys[dir] = map[string]string{}
		for _, c := range cells {
			st, err := r.Status(c)
			if err != nil || st.Err != nil {
				t.Fatal(err, st.Err)
			}
			keys[dir][c.ID] = st.Key
		}
	}
	year := 0
	for id, k := range keys[data] {
		if keys[other][id] != k {
			t.Errorf("%s: key differs between %s and %s", id, data, other)
		}
		if strings.Contains(id, "year-prediction-MSD") {
			year++
		}
	}
	if year != 55 || len(keys[data]) != 550 {
		t.Errorf("%d cells, %d of Year", len(keys[data]), year)
	}
}
