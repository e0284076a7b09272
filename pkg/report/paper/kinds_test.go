package paper

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/report"
)

func TestLMODirection(t *testing.T) {
	for _, tc := range []struct {
		settings any
		want     string
		exact    bool
	}{
		{map[string]any{}, "self", false},
		{nil, "self", false},
		{map[string]any{"direction": ""}, "self", false},
		{map[string]any{"direction": "frozen", "kernel": "rff"}, "frozen", false},
		{map[string]any{"direction": "exact"}, "exact", true},
		{map[string]any{"direction": "sideways"}, "self", false},
	} {
		c := &report.Cell{Prov: &harness.Provenance{Settings: tc.settings}}
		if got := LMODirection(c); got != tc.want || IsExactLMO(c) != tc.exact {
			t.Errorf("settings %v: direction %q exact %v, want %q %v", tc.settings, got, IsExactLMO(c), tc.want, tc.exact)
		}
	}
}

// KernelMMD2 names the statistic MMD-FW reports.
func TestKernelMMD2(t *testing.T) {
	if want := harness.StatPrefix + mmdfw.StatMMD2Kernel; KernelMMD2 != want {
		t.Errorf("KernelMMD2 = %q, want %q", KernelMMD2, want)
	}
}
