package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedFilesAreGenerated checks that the files under
// examples/own-data are exactly what the generator writes.
func TestCommittedFilesAreGenerated(t *testing.T) {
	for name, want := range Files() {
		got, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("%v (run: go run ./examples/own-data/gen)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output (run: go run ./examples/own-data/gen)", name)
		}
	}
}
