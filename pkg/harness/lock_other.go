//go:build !unix

package harness

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"
)

// lockFile creates path exclusively, waiting (and honouring ctx) while it
// exists. A process that dies holding it leaves the file behind: remove it
// by hand. When it has to wait, it calls onWait first and the function
// onWait returns when the wait ends.
func lockFile(ctx context.Context, path string, onWait func() (resume func())) (unlock func(), err error) {
	var resume func()
	defer func() {
		if resume != nil {
			resume()
		}
	}()
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if resume == nil {
			resume = onWait()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
