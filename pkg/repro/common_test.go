package repro

import (
	"path/filepath"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// --data-dir reaches the runner in its options; its default is
// $MMDFW_DATA, else "data".
func TestDataDirFlagReachesTheRunner(t *testing.T) {
	t.Setenv(dataEnv, "")
	if got := defaultDataDir(); got != "data" {
		t.Fatalf("default data folder %q, want data", got)
	}
	env := t.TempDir()
	t.Setenv(dataEnv, env)
	if c := newCellCmd(testCLI(), cellSpec{name: "list"}); *c.dataDir != env {
		t.Fatalf("--data-dir default %q, want $%s = %q", *c.dataDir, dataEnv, env)
	}
	dir := t.TempDir()
	c := newCellCmd(testCLI(), cellSpec{name: "list"})
	files, err := c.parse([]string{filepath.Join("..", "..", "experiments", "rff.toml"), "--data-dir", dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	if got := c.runner(harness.Options{}).DataDir(); got != dir {
		t.Fatalf("runner's data folder %q, want %q", got, dir)
	}
}
