// Package safefile opens the files of a results directory (provenance,
// result CSVs, running markers, lock files, cached artefacts and their
// checkpoints) as what they must be: regular files, reached without
// following a symbolic link in the last element of their path, and
// without blocking on a named pipe or a device. Anyone who can write to a
// shared results directory could otherwise point a marker at a file of the
// runner's user and have it truncated, or leave a pipe that hangs every
// reader.
//
// Only the last element is checked: a results directory that is itself a
// link (to a scratch disk) is followed as before.
package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is the error (wrapped in an *fs.PathError) of a path that
// names something other than a regular file: a directory, a named pipe, a
// device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrSymlink is the error (wrapped in an *fs.PathError) of a path whose
// last element is a symbolic link, which is not followed.
var ErrSymlink = errors.New("is a symbolic link (not followed)")

// Open opens path for reading when it is a regular file that is not a
// symbolic link. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func Open(path string) (*os.File, error) {
	return open(path, os.O_RDONLY, 0)
}

// OpenLock opens path for reading and writing, creating it with
// permissions perm when it is absent, when it is a regular file that is
// not a symbolic link: the file a lock (flock) is taken on.
func OpenLock(path string, perm os.FileMode) (*os.File, error) {
	return open(path, os.O_RDWR|os.O_CREATE, perm)
}

// ReadFile reads the whole of path when it is a regular file that is not a
// symbolic link (see Open).
func ReadFile(path string) ([]byte, error) { return ReadFileMax(path, 0) }

// ReadFileMax is ReadFile refusing, before reading it, a file of more than
// max bytes (no limit when max ≤ 0), with an error naming the file and
// both sizes.
func ReadFileMax(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max > 0 {
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if fi.Size() > max {
			return nil, fmt.Errorf("%s: %d bytes, more than the %d this file may have", path, fi.Size(), max)
		}
		// A file that grows while it is read stops at max + 1 bytes.
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
			return nil, err
		}
		if int64(buf.Len()) > max {
			return nil, fmt.Errorf("%s: more than the %d bytes this file may have", path, max)
		}
		return buf.Bytes(), nil
	}
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() < 1<<30 {
		buf.Grow(int(fi.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// regular checks that f, opened from path, is a regular file, closing it
// when it is not.
func regular(f *os.File, path string) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: notRegular(fi.Mode())}
	}
	return f, nil
}

// notRegular returns ErrNotRegular saying what the file is instead.
func notRegular(m fs.FileMode) error {
	what := "a special file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m&fs.ModeSymlink != 0:
		return ErrSymlink
	}
	return &kindError{what}
}

// kindError is ErrNotRegular naming what the file is.
type kindError struct{ what string }

func (e *kindError) Error() string { return ErrNotRegular.Error() + " (" + e.what + ")" }

func (e *kindError) Is(target error) bool { return target == ErrNotRegular }
