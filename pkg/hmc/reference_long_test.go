package hmc

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mmdfw/mmdfw/internal/mirror"
	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// longTests skips unless MMDFW_LONG=1: these tests run the reference
// sampler on real data and take minutes.
func longTests(t *testing.T) string {
	t.Helper()
	if os.Getenv("MMDFW_LONG") != "1" {
		t.Skip("set MMDFW_LONG=1 to run (minutes)")
	}
	dir, ok := mirror.Shared()
	if !ok {
		t.Skip("no staged data directory")
	}
	return dir
}

// metricFromEnv lets a measurement pick the metric: MMDFW_HMC_METRIC=diag.
func metricFromEnv() Metric {
	if m := os.Getenv("MMDFW_HMC_METRIC"); m != "" {
		return Metric(m)
	}
	return MetricAuto
}

// cpuSeconds is the user+system CPU time of the process, so that a
// measurement on a shared machine can be read in CPU time too.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// logReference logs what a reference costs and how good it is; cpu is the
// CPU time spent in Run.
func logReference(t *testing.T, res *Result, tg target.Target, wall time.Duration, cpu float64) {
	t.Helper()
	var calls int64
	var acc, adapt, steps, eps float64
	for c, dg := range res.Diagnostics {
		t.Logf("chain %d: accept %.3f (terminal warm-up window %.3f) ε %.4g steps %.1f divergences %d/%d gradients %d",
			c, dg.AcceptRate, dg.AdaptAccept, dg.StepSize, dg.MeanSteps, dg.Divergences, dg.WarmupDivergences, dg.GradCalls)
		calls += dg.GradCalls
		acc += dg.AcceptRate
		adapt += dg.AdaptAccept
		steps += dg.MeanSteps
		eps += dg.StepSize
	}
	k := float64(len(res.Diagnostics))
	worstR, worstE := 0, 0
	for j := range res.Rhat {
		if res.Rhat[j] > res.Rhat[worstR] {
			worstR = j
		}
		if res.ESS[j] < res.ESS[worstE] {
			worstE = j
		}
	}
	t.Logf("d = %d, N = %d: max R̂ %.4f (coordinate %d), min bulk ESS %.0f (coordinate %d), mean accept %.3f (warm-up terminal window %.3f), mean ε %.4g, mean steps %.1f",
		tg.Dim(), target.NData(tg), res.MaxRhat, worstR, res.MinESS, worstE, acc/k, adapt/k, eps/k, steps/k)
	t.Logf("wall %.1f s, CPU %.1f s, %d full-data gradients (%.3g ms wall, %.3g ms CPU each; %d cores), flagged %v %q",
		wall.Seconds(), cpu, calls, 1e3*wall.Seconds()/float64(calls), 1e3*cpu/float64(calls), runtime.GOMAXPROCS(0), res.Flagged, res.Reasons)
}

// TestCovertypeReferenceLong draws the Covertype reference as the
// experiments do (4 chains × (1000 warm-up + 1000 draws), default settings)
// on the staged 20,000-row prefix, split seed 1, and requires it to pass the
// reference checks: max R̂ ≤ 1.01, min bulk ESS ≥ 400, no divergence.
//
//	MMDFW_LONG=1 go test -run CovertypeReferenceLong -v -timeout 1h ./pkg/hmc
func TestCovertypeReferenceLong(t *testing.T) {
	dir := longTests(t)
	cl, err := data.LoadClassification(dir, "covertype", 1)
	if err != nil {
		t.Skip(err)
	}
	m := model.NewLogistic(cl.XTrain, cl.YTrain)
	// The chains already occupy the cores; one goroutine per gradient
	// avoids oversubscription.
	m.Workers = 1
	begin, cpu0 := time.Now(), cpuSeconds()
	hmcRes, err := Run(context.Background(), m, particle.Start{}, Settings{Metric: metricFromEnv()}, rand.NewPCG(2019, 1), nil)
	res, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	logReference(t, res, m, time.Since(begin), cpuSeconds()-cpu0)
	if res.Flagged {
		t.Errorf("Covertype reference flagged: %q", res.Reasons)
	}
}

// TestNavalBNNShortLong measures what a BNN reference on Naval (split 0,
// 50 hidden units, d = 903) costs: 2 chains × (200 warm-up + 200 draws),
// at most 64 leapfrog steps per transition (the adapted ε is so small that
// the default integration time would always hit the cap of 1024 steps).
// It is far too short to converge and is not required to; it must run
// without error and report finite diagnostics.
//
//	MMDFW_LONG=1 go test -run NavalBNNShortLong -v -timeout 1h ./pkg/hmc
func TestNavalBNNShortLong(t *testing.T) {
	dir := longTests(t)
	rg, err := data.LoadRegression(dir, "naval-propulsion-plant", 0)
	if err != nil {
		t.Skip(err)
	}
	m := model.NewBNN(rg.XTrain, rg.YTrain, 50)
	m.Workers = 1
	begin, cpu0 := time.Now(), cpuSeconds()
	hmcRes, err := Run(context.Background(), m, particle.Start{}, Settings{Chains: 2, Warmup: 200, DrawsPerChain: 200, MaxSteps: 64, Metric: metricFromEnv()}, rand.NewPCG(2019, 2), nil)
	res, _ := hmcRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	logReference(t, res, m, time.Since(begin), cpuSeconds()-cpu0)
	if math.IsNaN(res.MaxRhat) || math.IsNaN(res.MinESS) {
		t.Errorf("undefined diagnostics: max R̂ %v, min ESS %v", res.MaxRhat, res.MinESS)
	}
}
