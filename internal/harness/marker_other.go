//go:build !unix

package harness

import (
	"os"

	"github.com/mmdfw/mmdfw/internal/atomicfile"
)

// holdMarker writes the marker; without flock, a marker left by a killed
// process counts as running until it is removed by hand or the cell runs
// again.
func holdMarker(path string, b []byte) (end func(), err error) {
	if err := atomicfile.Write(path, b, 0o644); err != nil {
		return nil, err
	}
	return func() { os.Remove(path) }, nil
}

// markerHeld reports whether the marker exists.
func markerHeld(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
