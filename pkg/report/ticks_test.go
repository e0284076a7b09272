package report

import (
	"math"
	"testing"
)

// TestLogTicks checks the labels of the log axis: powers of ten over wide
// ranges, 1-2-5 over a decade or two, every multiple within one decade, and
// no tick outside the range.
func TestLogTicks(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     []string
	}{
		{1e-4, 1, []string{"0.0001", "0.001", "0.01", "0.1", "1"}},
		{0.15, 3, []string{"0.2", "0.5", "1", "2"}},
		{0.13, 0.45, []string{"0.2", "0.3", "0.4"}},
	} {
		lmin, lmax := math.Log10(c.min), math.Log10(c.max)
		var got []string
		for _, tk := range (logTicks{}).Ticks(lmin, lmax) {
			if tk.Value < lmin-1e-9 || tk.Value > lmax+1e-9 {
				t.Errorf("[%v, %v]: tick %v outside the range", c.min, c.max, math.Pow(10, tk.Value))
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("[%v, %v]: labels %q, want %q", c.min, c.max, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("[%v, %v]: labels %q, want %q", c.min, c.max, got, c.want)
				break
			}
		}
	}
}
