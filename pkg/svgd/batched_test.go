package svgd_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"

	"gonum.org/v1/gonum/mat"
)

// perParticle hides the batched method of a target, so that Run scores the
// particles one MinibatchLogProbGrad call at a time.
type perParticle struct{ target.Stochastic }

// TestStochasticBatchedMatchesPerParticle runs SVGD on the logistic
// regression and the neural network of pkg/model once through their
// MinibatchLogProbGradBatch and once particle by particle: the particles
// must agree to 1e-12 after 30 iterations.
func TestStochasticBatchedMatchesPerParticle(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	const rows = 500
	X := mat.NewDense(rows, 6, nil)
	ylr := make([]float64, rows)
	ybnn := make([]float64, rows)
	for i := 0; i < rows; i++ {
		row := X.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		ylr[i] = 1
		if row[0]-row[1]+0.5*rng.NormFloat64() < 0 {
			ylr[i] = -1
		}
		ybnn[i] = math.Sin(row[0]) + 0.3*row[2] + 0.1*rng.NormFloat64()
	}
	lr := model.NewLogistic(X, ylr)
	bnn := model.NewBNN(X, ybnn, 5)
	for _, c := range []struct {
		name string
		tg   target.StochasticBatched
		n    int
	}{{"logistic", lr, 30}, {"bnn", bnn, 12}} {
		d := c.tg.Dim()
		init := mat.NewDense(c.n, d, nil)
		for i := 0; i < c.n; i++ {
			row := init.RawRowView(i)
			for j := range row {
				row[j] = 0.5 * rng.NormFloat64()
			}
		}
		s := svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}, Iterations: 30, StepSize: 0.01, Batch: 40}
		got, err := sampler.Set(svgd.Run(context.Background(), c.tg, particle.Start{Particles: init}, s, rand.NewPCG(5, 5), nil))
		if err != nil {
			t.Fatal(err)
		}
		want, err := sampler.Set(svgd.Run(context.Background(), perParticle{c.tg}, particle.Start{Particles: init}, s, rand.NewPCG(5, 5), nil))
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for i := 0; i < c.n; i++ {
			for j := 0; j < d; j++ {
				g, w := got.X.At(i, j), want.X.At(i, j)
				worst = math.Max(worst, math.Abs(g-w)/math.Max(1, math.Abs(w)))
			}
		}
		if !(worst <= 1e-12) {
			t.Errorf("%s: batched and per-particle particles differ by %.3g", c.name, worst)
		}
		if mat.Equal(got.X, init) {
			t.Errorf("%s: the particles did not move", c.name)
		}
	}
}
