package data

import (
	"os"
	"path/filepath"
)

// SharedDir returns the folder ../shared/data beside the module root (the
// folder holding go.mod, found by walking up from the working directory),
// and whether it exists.
//
// Deprecated: the staged mirror is the reproduction's, not this package's:
// use internal/mirror.Shared inside this module. SharedDir remains only
// until its last caller has moved.
func SharedDir() (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(filepath.Dir(dir), "shared", "data")
			fi, err := os.Stat(p)
			return p, err == nil && fi.IsDir()
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
