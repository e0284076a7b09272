package optim_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/optim"
)

// Train one network by minibatch Adam, stopped early on validation rows,
// and read its per-coordinate scales.
func ExampleTrain() {
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(200, 2, nil)
	y := make([]float64, 200)
	for i := range y {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		X.SetRow(i, []float64{a, b})
		y[i] = math.Tanh(a) - 0.5*b + 0.1*rng.NormFloat64()
	}
	train := model.NewBNN(mat.DenseCopyOf(X.Slice(0, 150, 0, 2)), y[:150], 10)
	Xva, yva := mat.DenseCopyOf(X.Slice(150, 200, 0, 2)), y[150:]
	x0 := make([]float64, train.Dim())
	train.Init(rng, x0)
	res, err := optim.Train(context.Background(), train, x0, optim.Settings{
		Batch: 50,
		Validate: func(x []float64) float64 {
			rmse, _ := train.Metrics(Xva, yva, mat.NewDense(1, len(x), x), []float64{1}, 0, 1)
			return -rmse
		},
	}, rand.NewPCG(3, 4))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("validation RMSE below 0.3: %v\n", -res.Score < 0.3)
	fmt.Printf("%d scales, %d gradient evaluations per step\n", len(res.Scale), res.GradEvals/int64(res.Steps))
	// Output:
	// validation RMSE below 0.3: true
	// 43 scales, 50 gradient evaluations per step
}
