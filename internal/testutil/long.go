package testutil

import (
	"os"
	"testing"
)

// LongEnv is the environment variable that turns the long checks on:
// make test-long sets it to 1. make test leaves them out for time; each
// of them skips there, saying what it skips and where it runs.
const LongEnv = "MMDFW_LONG"

// Long reports whether the long checks run (LongEnv is "1").
func Long() bool { return os.Getenv(LongEnv) == "1" }

// SkipUnlessLong skips t unless Long, with a message naming what is
// skipped, about how long it takes, and the command that runs it.
func SkipUnlessLong(t testing.TB, what string) {
	t.Helper()
	if !Long() {
		t.Skipf("long check not run by make test: %s; make test-long (%s=1) runs it", what, LongEnv)
	}
}
