package experiment

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// snapshots records what a method reports: step, cost and a copy of the
// particles and weights.
type snapshots struct {
	s []particle.Snapshot
	// stopAfter, when positive, asks the method to stop at that snapshot,
	// as a budget does.
	stopAfter int
}

func (r *snapshots) Record(s particle.Snapshot) error {
	s.X = mat.DenseCopyOf(s.X)
	s.W = append([]float64(nil), s.W...)
	r.s = append(r.s, s)
	if r.stopAfter > 0 && len(r.s) >= r.stopAfter {
		return particle.ErrStop
	}
	return nil
}

// startData is a synthetic regression problem of 300 rows, 3 features and
// 5 hidden units, on the original scale y·2 + 1.
func startData() *BNNData {
	X, y := synthBNN(300, 3, 21)
	Xt, yt := synthBNN(40, 3, 22)
	for i := range yt {
		yt[i] = yt[i]*2 + 1
	}
	return NewBNNData(Info{Name: "synth"}, model.NewBNN(X, y, 5), X, y, Xt, yt, nil, nil, 1, 2)
}

func startEnv() *harness.Env { return &harness.Env{Cell: &harness.Cell{Split: 0}} }

func trainedSVGD(d Model, init string, noise float64, rec particle.Recorder, seed uint64) harness.Input[SVGDConfig] {
	var target harness.Problem
	target.Model = d
	if b := d.Network(); b != nil {
		target.Target = b.BNN
	}
	return harness.Input[SVGDConfig]{
		Problem: &target,
		Settings: SVGDConfig{Settings: svgd.Settings{Iterations: 20, StepSize: 3e-3, Batch: 50, RecordEvery: 5, Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}},
			InitFrom: init, InitNoise: noise},
		N: 8, Threads: 1, Src: rand.NewPCG(seed, 7), Recorder: rec, Env: startEnv(),
	}
}

// TestSVGDTrainedCharged runs SVGD from the trained network and from Init
// draws: every snapshot of the trained run costs exactly the training's
// gradient evaluations more than the same snapshot of the other (SVGD's
// own count does not depend on its start), and at least its seconds; the
// summary gives the training's outcome; the same seed gives the same
// particles bit for bit.
func TestSVGDTrainedCharged(t *testing.T) {
	d := startData()
	var a, b snapshots
	outA, err := runSVGD(context.Background(), trainedSVGD(d, "trained", 0, &a, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runSVGD(context.Background(), trainedSVGD(d, "model", 0, &b, 1)); err != nil {
		t.Fatal(err)
	}
	m := outA.Summary.(map[string]any)["method"].(map[string]any)
	train := m["train_grad_evals"].(int64)
	if train <= 0 || m["train_steps"].(int) <= 0 {
		t.Fatalf("training summary %v: want its steps and gradient evaluations", m)
	}
	if len(a.s) == 0 || len(a.s) != len(b.s) {
		t.Fatalf("%d and %d snapshots", len(a.s), len(b.s))
	}
	for i := range a.s {
		if got := a.s[i].GradEvals - b.s[i].GradEvals; got != train {
			t.Errorf("snapshot %d: %d more gradient evaluations, want the training's %d", i, got, train)
		}
		if a.s[i].Seconds < m["train_seconds"].(float64) {
			t.Errorf("snapshot %d: %v s, below the training's %v s", i, a.s[i].Seconds, m["train_seconds"])
		}
	}
	var c snapshots
	outC, err := runSVGD(context.Background(), trainedSVGD(d, "trained", 0, &c, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(outA.Set.X, outC.Set.X) {
		t.Error("the same seed gave other particles")
	}
}

// TestAroundTrainedScale draws 4,000 particles around a trained point
// whose scales include +Inf and a tiny value (clamped to
// mmdfw.TrainedScaleMax and TrainedScaleMin): each coordinate's sample
// mean is θ*ⱼ and its sample sd noise·σⱼ, within 4 Monte Carlo standard
// errors (sd/√n for the mean, about sd/√(2n) for the sd).
func TestAroundTrainedScale(t *testing.T) {
	const n, noise = 4000, 0.3
	r := optim.Result{X: []float64{1, -2, 0.5, 3}, Scale: []float64{0.2, math.Inf(1), 1e-9, 0.05}}
	sig := []float64{0.2, mmdfw.TrainedScaleMax, mmdfw.TrainedScaleMin, 0.05}
	X := aroundTrained(r, n, noise, rand.New(rand.NewPCG(3, 4)))
	for j := range r.X {
		col := mat.Col(nil, j, X)
		var mean, ss float64
		for _, v := range col {
			mean += v
		}
		mean /= n
		for _, v := range col {
			ss += (v - mean) * (v - mean)
		}
		sd, want := math.Sqrt(ss/(n-1)), noise*sig[j]
		if math.Abs(mean-r.X[j]) > 4*want/math.Sqrt(n) {
			t.Errorf("coordinate %d: mean %v, want %v ± %v", j, mean, r.X[j], 4*want/math.Sqrt(n))
		}
		if math.Abs(sd-want) > 4*want/math.Sqrt(2*n) {
			t.Errorf("coordinate %d: sd %v, want %v ± %v", j, sd, want, 4*want/math.Sqrt(2*n))
		}
	}
}
