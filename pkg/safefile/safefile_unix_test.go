//go:build unix

package safefile

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A named pipe is refused at once, for reading and for locking, rather
// than blocking until a writer comes.
func TestFIFORefusedWithoutBlocking(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan [2]error, 1)
	go func() {
		_, err1 := ReadFile(p)
		f, err2 := OpenLock(p, 0o644)
		if err2 == nil {
			f.Close()
		}
		done <- [2]error{err1, err2}
	}()
	select {
	case errs := <-done:
		for i, err := range errs {
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("call %d on a named pipe: %v, want ErrNotRegular", i, err)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a named pipe blocked")
	}
}
