package mmdfw_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// For a neural network MMD-FW starts from one network trained by minibatch
// Adam, early-stopped on validation rows, and measures its candidates'
// noise and LMO steps in that training's per-coordinate scales
// (ScaleGiven, chosen automatically by the trained start). The training's
// gradient evaluations are charged to the run.
func ExampleRun_trainedStart() {
	rng := rand.New(rand.NewPCG(1, 2))
	rows := func(n int) (*mat.Dense, []float64) {
		X := mat.NewDense(n, 2, nil)
		y := make([]float64, n)
		for i := range y {
			a, b := rng.NormFloat64(), rng.NormFloat64()
			X.SetRow(i, []float64{a, b})
			y[i] = math.Sin(2*a) + 0.5*b + 0.1*rng.NormFloat64()
		}
		return X, y
	}
	Xtr, ytr := rows(200)
	Xva, yva := rows(100)
	m := model.NewBNN(Xtr, ytr, 10)
	m.Workers = 1
	valRMSE := func(P *mat.Dense, w []float64) float64 {
		r, _ := m.Metrics(Xva, yva, P, w, 0, 1)
		return r
	}
	x0 := make([]float64, m.Dim())
	m.Init(rng, x0)
	s := mmdfw.Settings{
		N:          10,
		Candidates: mmdfw.Candidates{First: mmdfw.FirstTrained},
		Weighting:  mmdfw.Weighting{Weights: mmdfw.Stein},
		LMO:        mmdfw.LMO{Batch: 50, LMOSteps: 50},
	}
	sStart, sIn := particle.Start{X0: x0}, mmdfw.Inputs{Train: &optim.Settings{Batch: 50, Validate: func(x []float64) float64 {
		return -valRMSE(mat.NewDense(1, len(x), x), []float64{1})
	}}}
	s.Inputs = sIn
	mmdfwRes, err := mmdfw.Run(context.Background(), m, sStart, s, rand.NewPCG(3, 4), particle.Discard)
	res, _ := mmdfwRes.Detail.(*mmdfw.Result)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("particles:", res.Set.Len())
	fmt.Println("training charged:", res.TrainGradEvals > 0 && res.TrainGradEvals < res.GradEvals)
	fmt.Println("validation RMSE below 0.5:", valRMSE(res.Set.X, res.Set.W) < 0.5)
	// Output:
	// particles: 10
	// training charged: true
	// validation RMSE below 0.5: true
}
