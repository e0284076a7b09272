package harness

import (
	"os"
	"testing"
)

// On a system with /proc/loadavg the load average is read and is a
// non-negative number.
func TestLoadAvg(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		t.Skip("no /proc/loadavg on this system")
	}
	v, ok := loadAvg()
	if !ok || v < 0 {
		t.Errorf("loadAvg = %v, %v", v, ok)
	}
}
