package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mmdfw/mmdfw/internal/experiment"
)

// --data-dir reaches the wiring through the environment, for this process
// and for the jobs it starts.
func TestDataDirFlagSetsTheEnvironment(t *testing.T) {
	t.Setenv(experiment.DataEnv, "")
	dir := t.TempDir()
	c := newCellCmd(cellSpec{name: "list"})
	files, err := c.parse([]string{filepath.Join("..", "..", "experiments", "rff.toml"), "--data-dir", dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	if got := os.Getenv(experiment.DataEnv); got != dir {
		t.Fatalf("%s = %q, want %q", experiment.DataEnv, got, dir)
	}
	if got := experiment.DataDir(); got != dir {
		t.Fatalf("DataDir() = %q, want %q", got, dir)
	}
}
