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
