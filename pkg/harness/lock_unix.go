//go:build unix

package harness

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/mmdfw/mmdfw/pkg/safefile"
)

// lockFile takes an exclusive flock on path, waiting (and honouring ctx)
// while another process holds it; when it has to wait, it calls onWait
// first and the function onWait returns when the wait ends. The kernel
// releases the lock if the holder dies, so a crash leaves no stale lock. A
// lock file that is a symbolic link or not a regular file is an error: it
// is neither followed nor created through.
func lockFile(ctx context.Context, path string, onWait func() (resume func())) (unlock func(), err error) {
	f, err := safefile.OpenLock(path, 0o644)
	if err != nil {
		return nil, err
	}
	var resume func()
	defer func() {
		if resume != nil {
			resume()
		}
	}()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		if resume == nil {
			resume = onWait()
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
