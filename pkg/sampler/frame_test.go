package sampler_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// The zero values of MMD-FW, SVGD, Stein Points and SGLD run in the Laplace
// fit's whitened coordinates; their diagnostics are those of the returned
// set in the target's own coordinates: metric.DiagnoseSet on the set with
// the target's own scores and probes gives the recorded KSD², Stein spread
// ratio and uncovered probes (on a Gaussian whose standard deviations run
// from 0.01 to 10, where the KSD² of the whitened coordinates differs by
// orders of magnitude). The rows scored are every row for the sets that
// cache or can afford them, and SGLD's evenly thinned subsample of
// metric.MaxScored draws.
func TestDiagnosticsInTheTargetsCoordinates(t *testing.T) {
	g := testutil.BadlyScaled(t)
	tg := testutil.AsFunc(g)
	d := g.Dim()
	x0 := make([]float64, d)
	for _, c := range []struct {
		name string
		m    sampler.Sampler
	}{
		{"mmdfw", mmdfw.Settings{}},
		{"svgd", svgd.Settings{}},
		{"sp", sp.Settings{}},
		{"sgld", sgld.Settings{}},
	} {
		set, err := c.m.Run(context.Background(), tg, particle.Start{X0: x0}, rand.NewPCG(1, 2), particle.Discard)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := set.Len()
		rows := metric.Thin(n, n)
		if c.name == "sgld" {
			rows = metric.Thin(n, min(n, metric.MaxScored))
		}
		s := mat.NewDense(len(rows), d, nil)
		lp := make([]float64, len(rows))
		for k, i := range rows {
			lp[k] = tg.LogProbGrad(set.X.RawRowView(i), s.RawRowView(k))
		}
		var want particle.Diagnostics
		metric.DiagnoseSet(&want, metric.SetDiagnosis{X: set.X, W: set.W, Rows: rows, S: s, LogP: lp,
			Target: tg, Probes: int(set.Diag.Values["probes"])})
		got := set.Diag.Values
		t.Logf("%s: %d particles, KSD² %.4g, spread ratio %.4g, %v of %v probes uncovered, flags %q", c.name, n,
			got["ksd2"], got["stein_spread"], got["uncovered"], got["probes"], set.Diag.Reason())
		for _, name := range []string{"ksd2", "stein_spread", "kish_ess", "uncovered"} {
			w, ok := want.Values[name]
			if v, has := got[name]; !ok || !has || math.Abs(v-w) > 1e-6*math.Abs(w) {
				t.Errorf("%s: %s %v (recorded %v), want %v (computed %v) in the target's coordinates", c.name, name, v, has, w, ok)
			}
		}
	}
}
