// Package mirror locates the reproduction's staged data mirror: the folder
// ../shared/data beside the module root, laid out as `repro data fetch`
// expects a mirror (one folder per dataset). It is where this repository's
// tests find the real data; pkg/data itself knows no such place.
package mirror

import (
	"os"
	"path/filepath"
)

// Shared returns the staged data mirror ../shared/data beside the module
// root (the folder holding go.mod, found by walking up from the working
// directory), and whether it exists as a directory.
func Shared() (string, bool) {
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
