package mirror

import (
	"os"
	"path/filepath"
	"testing"
)

func TestShared(t *testing.T) {
	p, ok := Shared()
	// The module root is two levels up from this package.
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(root), "shared", "data"); p != want {
		t.Errorf("Shared() = %q, want %q", p, want)
	}
	fi, err := os.Stat(p)
	if exists := err == nil && fi.IsDir(); exists != ok {
		t.Errorf("Shared() reports %t, the folder exists: %t", ok, exists)
	}
}
