package mmdfw

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

// lrReference returns an HMC reference of the synthetic logistic
// regression (4 chains × 1000 draws after 1000 warm-up iterations) and
// fails the test when HMC flags it.
func lrReference(t *testing.T, lr *model.Logistic) *hmc.Result {
	t.Helper()
	hmcRes, err := hmc.Run(context.Background(), lr, particle.Start{}, hmc.Settings{}, rand.NewPCG(99, 1), nil)
	ref, _ := hmcRes.Detail.(*hmc.Result)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Flagged {
		t.Fatalf("HMC reference flagged: %v", ref.Reasons)
	}
	return ref
}

// TestLogisticMeanAgreesWithHMC runs MMD-FW with its defaults (MAP start,
// Self direction, Stein weights: no z is available) on a synthetic logistic
// regression and compares the weighted posterior mean with HMC's. The
// error bar of coordinate j is 3 √(σⱼ²/N + σⱼ²/ESSⱼ): the N particles are
// held to the standard of N independent draws, HMC's mean has its own
// Monte Carlo error.
func TestLogisticMeanAgreesWithHMC(t *testing.T) {
	lr := syntheticLR(500, 4, rand.New(rand.NewPCG(21, 1)))
	ref := lrReference(t, lr)
	const N = 100
	set, err := sampler.Set(Run(context.Background(), lr, particle.Start{}, Settings{N: N}, rand.NewPCG(21, 2), nil))
	if err != nil {
		t.Fatal(err)
	}
	m := set.Mean(nil)
	hm := ref.Set.Mean(nil)
	d := lr.Dim()
	col := make([]float64, ref.Set.Len())
	for j := 0; j < d; j++ {
		mat.Col(col, j, ref.Set.X)
		sd := stat.StdDev(col, nil)
		bar := 3 * math.Sqrt(sd*sd/N+sd*sd/ref.ESS[j])
		t.Logf("coord %d: MMD-FW %.4f, HMC %.4f ± %.4f (sd %.4f)", j, m[j], hm[j], bar, sd)
		if math.Abs(m[j]-hm[j]) > bar {
			t.Errorf("coord %d: MMD-FW mean %.4f, HMC %.4f: outside ±%.4f", j, m[j], hm[j], bar)
		}
	}
}

// TestMeasureDirectionsLogistic measures the two direction readings on a
// synthetic logistic regression (2000 rows, 10 features and a bias,
// d = 12) against an HMC reference: MMD² (RBF, bandwidth the median
// pairwise distance of the reference) and the error of the weighted mean
// in posterior standard deviations. It asserts the default (Self) is the
// better reading for every weight rule.
//
//	go test ./pkg/mmdfw -run TestMeasureDirectionsLogistic -mmdfw.measure -v
func TestMeasureDirectionsLogistic(t *testing.T) {
	if !*measure {
		t.Skip("measurement; run with -mmdfw.measure")
	}
	lr := syntheticLR(2000, 10, rand.New(rand.NewPCG(22, 1)))
	ref := lrReference(t, lr)
	Y := ref.Set.X
	h := medianBandwidth(Y)
	mm := metric.NewMMD(kernel.RBF{H: h}, Y)
	hm := ref.Set.Mean(nil)
	d := lr.Dim()
	sd := make([]float64, d)
	col := make([]float64, ref.Set.Len())
	for j := range sd {
		mat.Col(col, j, Y)
		sd[j] = stat.StdDev(col, nil)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nreference: HMC %d draws, max R̂ %.3f, min ESS %.0f; MMD² bandwidth h = %.3g\n", ref.Set.Len(), ref.MaxRhat, ref.MinESS, h)
	fmt.Fprintf(&b, "| direction | weights | MMD² n=20 | MMD² n=100 | max |mean err|/sd | seconds | grad evals |\n|---|---|---|---|---|---|---|\n")
	final := map[[2]string]float64{}
	for _, dir := range []Direction{Frozen, Self} {
		for _, rule := range []Rule{Stein, Equal, BQ} {
			var l20, l100, merr, secs, ge float64
			const seeds = 3
			for seed := uint64(0); seed < seeds; seed++ {
				var at20 float64
				rec := recordAt(20, func(X *mat.Dense, w []float64) { at20 = mm.MMD2(X, w) })
				s := Settings{N: 100, LMO: LMO{Direction: dir}, Weighting: Weighting{Weights: rule}, KernelSpec: KernelSpec{Bandwidth: h}}
				var in Inputs
				if rule == BQ {
					// z from a separate pool: 500 draws of a second HMC run.
					hmcRes, err := hmc.Run(context.Background(), lr, particle.Start{}, hmc.Settings{DrawsPerChain: 125}, rand.NewPCG(77, seed), nil)
					pool, _ := hmcRes.Detail.(*hmc.Result)
					if err != nil {
						t.Fatal(err)
					}
					in.Pool = pool.Set.X
				}
				s.Inputs = in
				mmdfwRes, err := Run(context.Background(), lr, particle.Start{}, s, rand.NewPCG(23, seed), rec)
				res, _ := mmdfwRes.Detail.(*Result)
				if err != nil {
					t.Fatal(err)
				}
				l20 += math.Log(at20) / seeds
				l100 += math.Log(mm.MMD2(res.Set.X, res.Set.W)) / seeds
				m := res.Set.Mean(nil)
				var e float64
				for j := range m {
					e = math.Max(e, math.Abs(m[j]-hm[j])/sd[j])
				}
				merr += e / seeds
				secs += res.Seconds / seeds
				ge += float64(res.GradEvals) / seeds
			}
			final[[2]string{string(dir), string(rule)}] = l100
			name := map[Direction]string{Frozen: "frozen", Self: "self"}[dir]
			wn := rule.String()
			if rule == BQ {
				wn = "bq (pool z, 500 HMC draws)"
			}
			fmt.Fprintf(&b, "| %s | %s | %.2g | %.2g | %.2f | %.2f | %.3g |\n", name, wn, math.Exp(l20), math.Exp(l100), merr, secs, ge)
		}
	}
	t.Log(b.String())
	for _, rule := range []Rule{Stein, Equal, BQ} {
		if fr, se := final[[2]string{string(Frozen), string(rule)}], final[[2]string{string(Self), string(rule)}]; !(se < fr) {
			t.Errorf("%v: Self MMD² %.3g not below Frozen's %.3g", rule, math.Exp(se), math.Exp(fr))
		}
	}
}

// recordAt calls f with the snapshot of step n.
func recordAt(n int, f func(X *mat.Dense, w []float64)) particle.Recorder {
	return particle.RecorderFunc(func(s particle.Snapshot) error {
		if s.Step == n {
			f(s.X, s.W)
		}
		return nil
	})
}
