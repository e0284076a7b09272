//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user and system CPU time the process has used so
// far (getrusage), or 0 where it cannot be read.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
