//go:build !unix

package safefile

import (
	"io/fs"
	"os"
)

// open refuses a path that Lstat finds to be a link or not a regular file,
// opens it, and checks that the file opened is the one Lstat saw (a link
// put in its place between the two fails).
func open(path string, flag int, perm os.FileMode) (*os.File, error) {
	before, err := os.Lstat(path)
	switch {
	case err == nil && !before.Mode().IsRegular():
		return nil, &fs.PathError{Op: "open", Path: path, Err: notRegular(before.Mode())}
	case err != nil && (flag&os.O_CREATE == 0 || !os.IsNotExist(err)):
		return nil, err
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	if f, err = regular(f, path); err != nil {
		return nil, err
	}
	after, err := os.Lstat(path)
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, after) {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
	}
	return f, nil
}
