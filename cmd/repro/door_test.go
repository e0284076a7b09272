package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The command goes through the door a program of one's own uses: its
// non-test code imports pkg/repro and none of the harness, the wiring or
// the report directly (the toy kinds of -tags repro_toy aside).
func TestOneDoor(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Skipf("go list failed, the imports cannot be read: %v", err)
	}
	imports := strings.Fields(string(out))
	var door bool
	for _, p := range imports {
		switch {
		case strings.HasSuffix(p, "/pkg/repro"):
			door = true
		case strings.HasSuffix(p, "/pkg/harness"), strings.HasSuffix(p, "/pkg/experiment"), strings.Contains(p, "/pkg/report"):
			t.Errorf("cmd/repro imports %s: it should reach it through pkg/repro", p)
		}
	}
	if !door {
		t.Errorf("cmd/repro does not import pkg/repro: %v", imports)
	}
}

// Every public package stands on public packages only: nothing under pkg/
// reaches an internal/ package, so a program of one's own can use the whole
// harness, the wiring and the report.
func TestPublicPackagesNeedNoInternal(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../pkg/...").Output()
	if err != nil {
		t.Skipf("go list failed, the dependencies cannot be read: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/mmdfw/mmdfw/internal/") {
			t.Errorf("a package under pkg/ depends on %s", p)
		}
	}
}

// A program of one's own that is the whole command (examples/own-posterior:
// its own registry, then repro.Main) builds from public packages alone.
func TestOwnCommandNeedsNoInternal(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../examples/own-posterior").Output()
	if err != nil {
		t.Skipf("go list failed, the dependencies cannot be read: %v", err)
	}
	var door bool
	for _, p := range strings.Fields(string(out)) {
		door = door || strings.HasSuffix(p, "/pkg/repro")
		if strings.HasPrefix(p, "github.com/mmdfw/mmdfw/internal/") {
			t.Errorf("examples/own-posterior depends on %s", p)
		}
	}
	if !door {
		t.Error("examples/own-posterior does not reach pkg/repro")
	}
}
