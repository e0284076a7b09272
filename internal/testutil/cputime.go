package testutil

import (
	"testing"
	"time"
)

// CPUMeter reports a benchmark's process CPU time per operation as
// "cpu-ns/op": on a machine shared with other work the wall time of an
// operation grows with the load, its CPU time much less.
type CPUMeter struct{ start time.Duration }

// StartCPU starts a CPUMeter; call it just before the benchmark loop.
func StartCPU() CPUMeter { return CPUMeter{start: ProcessCPU()} }

// Report adds the metric to b, for the b.N operations since StartCPU.
func (m CPUMeter) Report(b *testing.B) {
	if b.N > 0 {
		b.ReportMetric(float64(ProcessCPU()-m.start)/float64(b.N), "cpu-ns/op")
	}
}
