//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// open opens path with O_NOFOLLOW, so that a link in its last element
// fails rather than being followed, and O_NONBLOCK, so that opening a
// named pipe returns at once; the file is then kept only when fstat says
// it is regular (where O_NONBLOCK has no effect).
func open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return nil, &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
			}
		}
		if errors.Is(err, syscall.ENXIO) {
			// A socket, or a pipe without a reader opened for writing.
			if fi, lerr := os.Lstat(path); lerr == nil {
				return nil, &fs.PathError{Op: "open", Path: path, Err: notRegular(fi.Mode())}
			}
		}
		return nil, err
	}
	return regular(f, path)
}
