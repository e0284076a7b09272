package race

import "testing"

var sink []byte

// A function that allocates on every call is counted as allocating in a
// normal build; under the race detector it is run, and counted as none.
func TestAllocsPerRun(t *testing.T) {
	calls := 0
	n := AllocsPerRun(t, 10, func() {
		calls++
		sink = make([]byte, 1<<10)
	})
	switch {
	case Enabled && (n != 0 || calls != 1):
		t.Errorf("under -race: %v allocations over %d calls, want 0 over 1", n, calls)
	case !Enabled && (n < 1 || calls != 11):
		t.Errorf("%v allocations per run over %d calls, want ≥ 1 over 11 (a warm-up and 10 runs)", n, calls)
	}
}
