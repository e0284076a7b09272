// Package race says whether the race detector is on, so that tests can
// leave out what it distorts: allocation counts. Its instrumentation
// allocates, and sync.Pool drops items at random under it, so a
// zero-allocation assertion that holds in a normal build fails under
// go test -race without any race.
package race

import "testing"

// Enabled reports whether the package was built with -race.
const Enabled = enabled

// AllocsPerRun is testing.AllocsPerRun(runs, f), except under the race
// detector: there it runs f once (so that the detector still sees it),
// logs through t that allocations are not counted, and returns 0.
func AllocsPerRun(t testing.TB, runs int, f func()) float64 {
	t.Helper()
	if Enabled {
		f()
		t.Log("allocations are not counted under the race detector")
		return 0
	}
	return testing.AllocsPerRun(runs, f)
}
