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
		case strings.HasSuffix(p, "/internal/harness"), strings.HasSuffix(p, "/internal/experiment"), strings.HasSuffix(p, "/internal/report"):
			t.Errorf("cmd/repro imports %s: it should reach it through pkg/repro", p)
		}
	}
	if !door {
		t.Errorf("cmd/repro does not import pkg/repro: %v", imports)
	}
}
