//go:build unix

package harness

import (
	"os"
	"path/filepath"
	"syscall"
)

// holdMarker writes b to a temporary file, locks it and renames it to path:
// the marker appears already locked and complete. end removes it and then
// releases the lock.
func holdMarker(path string, b []byte) (end func(), err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	if err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		if _, err = f.Write(b); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	return func() {
		// Removed only if it is still this process's marker: another
		// process running the same cell may have replaced it.
		if a, err1 := f.Stat(); err1 == nil {
			if b, err2 := os.Stat(path); err2 == nil && os.SameFile(a, b) {
				os.Remove(path)
			}
		}
		f.Close()
	}, nil
}

// markerHeld reports whether path exists and some process holds its lock.
// A filesystem without flock (ENOLCK, EOPNOTSUPP) counts an existing
// marker as held.
func markerHeld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	return true
}
