// Package atomicfile writes files so that a reader, or a run interrupted at
// any point, sees either the old content or the complete new one, never a
// partial file: the bytes go to a temporary file beside the target, which is
// synced and then renamed over it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes b to path atomically with permissions perm. The temporary
// file lives in path's directory (a rename is atomic only within one file
// system) and is removed when any step fails.
func Write(path string, b []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// File is a file being written atomically, piece by piece: the bytes go to
// a temporary file beside the target, which Commit syncs and renames over
// it and Abort removes. Nothing appears at the target before Commit.
type File struct {
	f    *os.File
	path string
	perm os.FileMode
	done bool
}

// Create starts writing path atomically with permissions perm; the
// temporary file lives in path's directory, as Write's does.
func Create(path string, perm os.FileMode) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{f: f, path: path, perm: perm}, nil
}

// Write writes b to the temporary file.
func (a *File) Write(b []byte) (int, error) { return a.f.Write(b) }

// Commit syncs the temporary file and renames it over the target; when any
// step fails the temporary file is removed. Commit after Commit or Abort
// does nothing.
func (a *File) Commit() error {
	if a.done {
		return nil
	}
	a.done = true
	tmp := a.f.Name()
	err := a.f.Chmod(a.perm)
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, a.path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Abort removes the temporary file, leaving the target as it was. Abort
// after Commit or Abort does nothing.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	os.Remove(a.f.Name())
}
