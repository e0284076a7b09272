package metric

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// BenchmarkDiagnoseSet times the diagnostics of a particle set with cached
// scores, as MMD-FW and Stein Points hand them over: fig1b's shape (200
// particles of a d = 56 logistic regression on 16,000 rows, 64 probes, the
// budget of a run of 10⁷ per-datapoint gradients; the probes' full-data
// gradients are most of it) and the one-dimensional mixture with 100
// points and 256 probes.
func BenchmarkDiagnoseSet(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	lr := model.NewLogistic(testutil.LogisticData(rng, 16000, 55))
	bench := func(b *testing.B, t target.Target, n, probes int) {
		d := t.Dim()
		X := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				X.Set(i, j, 3+0.1*rng.NormFloat64())
			}
		}
		in := SetDiagnosis{X: X, W: particle.Equal(n), Target: t, Probes: probes}
		in.S, in.LogP = scored(t, X)
		b.ReportAllocs()
		for b.Loop() {
			var dg particle.Diagnostics
			DiagnoseSet(&dg, in)
		}
	}
	b.Run("logistic-d56-n200-probes64", func(b *testing.B) { bench(b, lr, 200, 64) })
	b.Run("mixture-d1-n100-probes256", func(b *testing.B) { bench(b, mix, 100, 256) })
}
