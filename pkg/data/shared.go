package data

import (
	"os"
	"path/filepath"
)

// SharedDir returns the staged data mirror ../shared/data beside the module
// root (the folder holding go.mod, found by walking up from the working
// directory), and whether it exists. Tests use it to read the real data
// where it is staged and to skip where it is not.
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
