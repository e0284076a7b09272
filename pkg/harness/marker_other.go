//go:build !unix

package harness

import (
	"errors"
	"io/fs"
	"os"
)

// claimMarker creates the marker exclusively; an existing marker is
// errClaimed. Without flock, a marker left by a killed process counts as
// running until it is removed by hand.
func claimMarker(path string, b []byte) (end func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, errClaimed
	}
	if err != nil {
		return nil, err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	return func() { os.Remove(path) }, nil
}

// markerHeld reports whether the marker exists as a regular file.
func markerHeld(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}
