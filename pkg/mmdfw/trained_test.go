package mmdfw

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// bnnRows returns n rows of p standard normal features and
// y = sin(2x₁) + x₂/2 + N(0, 0.1²).
func bnnRows(rng *rand.Rand, n, p int) (*mat.Dense, []float64) {
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := range y {
		row := X.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		y[i] = math.Sin(2*row[0]) + 0.5*row[1] + 0.1*rng.NormFloat64()
	}
	return X, y
}

// TestRunTrainedBNN runs MMD-FW from the trained start on a small synthetic
// BNN regression: the network is trained on its own rows and early-stopped
// on validation rows, and held-out rows (neither) judge the result. The
// trained start's gradient evaluations are charged to the run, ScaleAuto
// becomes ScaleGiven with the clamped training scales, and the held-out
// RMSE of the weighted particles ends below the constant predictor's
// (about the sd of y, 0.85 here) and does not rise as particles are added
// (within 2 % of the first particle's, the spread of the last snapshots
// between seeds).
func TestRunTrainedBNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const p, hidden = 3, 20
	Xtr, ytr := bnnRows(rng, 300, p)
	Xva, yva := bnnRows(rng, 100, p)
	Xte, yte := bnnRows(rng, 300, p)
	m := model.NewBNN(Xtr, ytr, hidden)
	m.Workers = 1
	d := m.Dim()
	rmse := func(X *mat.Dense, y []float64, P *mat.Dense, w []float64) float64 {
		r, _ := m.Metrics(X, y, P, w, 0, 1)
		return r
	}
	x0 := make([]float64, d)
	m.Init(rand.New(rand.NewPCG(33, 34)), x0)
	s := Settings{
		N:          20,
		Candidates: Candidates{First: FirstTrained},
		Weighting:  Weighting{Weights: Stein},
		LMO:        LMO{Batch: 50, LMOSteps: 50},
	}
	sStart, sIn := particle.Start{X0: x0}, Inputs{Train: &optim.Settings{Batch: 50, Validate: func(x []float64) float64 {
		return -rmse(Xva, yva, mat.NewDense(1, d, x), []float64{1})
	}}}
	var curve []float64
	rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
		curve = append(curve, rmse(Xte, yte, sn.X, sn.W))
		return nil
	})
	s.Inputs = sIn
	mmdfwRes, err := Run(context.Background(), m, sStart, s, rand.NewPCG(35, 36), rec)
	res, _ := mmdfwRes.Detail.(*Result)
	if err != nil {
		t.Fatal(err)
	}
	if res.Train == nil || res.TrainGradEvals != res.Train.GradEvals || res.TrainGradEvals == 0 {
		t.Fatalf("training not charged: %v, %d", res.Train != nil, res.TrainGradEvals)
	}
	if len(res.Scales) != d {
		t.Fatalf("ScaleAuto with a trained start gave %d scales, want %d", len(res.Scales), d)
	}
	for j, v := range res.Scales {
		if v < TrainedScaleMin || v > TrainedScaleMax {
			t.Fatalf("scale %d = %v outside the clamp", j, v)
		}
	}
	var ss float64
	for _, v := range yte {
		ss += v * v
	}
	constant := math.Sqrt(ss / float64(len(yte)))
	t.Logf("held-out RMSE along the run: %.4f (n=1) … %.4f (n=%d); constant predictor %.4f; training %d steps (best %d)",
		curve[0], curve[len(curve)-1], len(curve), constant, res.Train.Steps, res.Train.BestStep)
	if len(curve) != s.N {
		t.Fatalf("%d snapshots, want %d", len(curve), s.N)
	}
	last := curve[len(curve)-1]
	if !(last < 0.5*constant) {
		t.Errorf("final held-out RMSE %.4f not below half the constant predictor's %.4f", last, constant)
	}
	if last > 1.02*curve[0] {
		t.Errorf("held-out RMSE rose from %.4f to %.4f as particles were added", curve[0], last)
	}
}
