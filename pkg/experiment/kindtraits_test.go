package experiment

import (
	"slices"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
)

// The wiring describes every kind the report has to tell apart: the legend
// order, the kinds that add one particle per step, the kinds whose flags
// are read by a rule of their own, and HMC's lack of set checks.
func TestKindTraitsRegistered(t *testing.T) {
	kinds := testRegistry.Kinds()
	var order []string
	for _, k := range []string{KindSGLD, KindHMC, KindSP, KindSVGDAnchor, KindMMDFW, KindOLS, KindSVGD} {
		if kinds.Traits(k).Legend > 0 {
			order = append(order, k)
		}
	}
	slices.SortFunc(order, func(a, b string) int { return kinds[a].Legend - kinds[b].Legend })
	if want := []string{KindMMDFW, KindSVGD, KindSP, KindSGLD}; !slices.Equal(order, want) {
		t.Errorf("legend order %v, want %v", order, want)
	}
	for k, want := range map[string]bool{KindMMDFW: true, KindSP: true, KindSVGD: false, KindSGLD: false, KindHMC: false, KindStart: false} {
		if got := kinds.Traits(k).OneParticlePerStep; got != want {
			t.Errorf("%s: one particle per step %v, want %v", k, got, want)
		}
	}
	if !kinds.Traits(KindHMC).NoSetChecks || kinds.Traits(KindSVGD).NoSetChecks {
		t.Error("HMC alone runs no set checks")
	}
	for _, k := range []string{KindMMDFW, KindSP, KindHMC} {
		if kinds.Traits(k).Flags == nil || kinds.Traits(k).FlagNote == "" {
			t.Errorf("%s: no flag rule or note", k)
		}
	}
	if !strings.Contains(hmcNote, "fewer than 400 draws") || !strings.Contains(hmcNote, "below 1e-06 of the largest") {
		t.Errorf("HMC's note does not give its bounds: %s", hmcNote)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second description of mmdfw did not panic")
		}
	}()
	r := harness.NewRegistry()
	Register(r)
	r.DescribeKind(KindMMDFW, harness.KindTraits{})
}

// MMD-FW's series traits, from recorded settings as the results hold them
// (decoded JSON): a random-feature series is read in its own kernel, an
// exact-direction one is a control, and twins share kernel, feature count
// and bandwidth.
func TestMMDFWSeriesTraits(t *testing.T) {
	own := harness.StatPrefix + mmdfw.StatMMD2Kernel
	for _, c := range []struct {
		settings                any
		ownMetric, control      string
		sameTwinAs, otherTwinAs any
	}{
		{nil, "", "", map[string]any{"direction": "exact"}, map[string]any{"kernel": "rff"}},
		{map[string]any{"direction": "frozen", "kernel": "rff", "features": 50.0}, own, "",
			map[string]any{"direction": "exact", "kernel": "rff", "features": 50.0}, map[string]any{"kernel": "rff", "features": 100.0}},
		{map[string]any{"direction": "exact", "bandwidth": 1.5}, "", exactLMONote,
			map[string]any{"bandwidth": 1.5}, map[string]any{"direction": "exact"}},
		{map[string]any{"direction": "sideways"}, "", "", nil, nil},
	} {
		got := mmdfwSeries(c.settings)
		if got.OwnMetric != c.ownMetric || got.Control != c.control {
			t.Errorf("%v: own metric %q control %q, want %q %q", c.settings, got.OwnMetric, got.Control, c.ownMetric, c.control)
		}
		if c.sameTwinAs == nil {
			if got.Twin != "" {
				t.Errorf("%v: settings that do not decode have twin %q", c.settings, got.Twin)
			}
			continue
		}
		if got.Twin == "" || mmdfwSeries(c.sameTwinAs).Twin != got.Twin || mmdfwSeries(c.otherTwinAs).Twin == got.Twin {
			t.Errorf("%v: twin %q; of %v %q, of %v %q", c.settings, got.Twin,
				c.sameTwinAs, mmdfwSeries(c.sameTwinAs).Twin, c.otherTwinAs, mmdfwSeries(c.otherTwinAs).Twin)
		}
	}
}
