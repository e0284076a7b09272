//go:build unix

package harness

import (
	"errors"
	"os"
	"syscall"

	"github.com/mmdfw/mmdfw/pkg/safefile"
)

// claimMarker takes the marker at path for this process: it opens (or
// creates) the file and takes an exclusive flock without waiting. A marker
// another live process holds is errClaimed; one left unlocked by a killed
// process is taken over. The lock is taken on the file that path names
// when the lock is granted (a holder that removed its marker between the
// open and the lock makes this one retry), so that two processes never
// both hold one cell. b is then written into the locked file. end removes
// the marker and then releases the lock. A marker that is a symbolic link
// or not a regular file (a named pipe) is an error naming it: it is
// neither followed nor written.
func claimMarker(path string, b []byte) (end func(), err error) {
	for {
		f, err := safefile.OpenLock(path, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, errClaimed
			}
			return nil, err
		}
		a, err1 := f.Stat()
		c, err2 := os.Lstat(path)
		if err1 != nil || err2 != nil || !os.SameFile(a, c) {
			// The holder removed it before this process locked it.
			f.Close()
			continue
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
		if _, err := f.WriteAt(b, 0); err != nil {
			f.Close()
			return nil, err
		}
		return func() {
			os.Remove(path)
			f.Close()
		}, nil
	}
}

// markerHeld reports whether path exists and some process holds its lock.
// A filesystem without flock (ENOLCK, EOPNOTSUPP) counts an existing
// marker as held. A marker that is a symbolic link or not a regular file
// is not held: it is not opened (a named pipe would block).
func markerHeld(path string) bool {
	f, err := safefile.Open(path)
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
