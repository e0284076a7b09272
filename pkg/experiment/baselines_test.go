package experiment

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/model"
)

// baselineData is the hand case x = 0, 1, 2, 3, y = 1, 3, 2, 5, with a
// second, all-zero feature (a constant column after standardisation), and
// the one test row x = 4, y = 5 on the original scale y·2 + 1.
func baselineData() (d *BNNData, XTest *mat.Dense, yTest []float64) {
	X := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 2, 0, 3, 0})
	y := []float64{1, 3, 2, 5}
	bnn := model.NewBNN(X, y, 4)
	XTest, yTest = mat.NewDense(1, 2, []float64{4, 0}), []float64{5*2 + 1}
	return NewBNNData(Info{Name: "hand"}, bnn, X, y, XTest, yTest, nil, nil, 1, 2), XTest, yTest
}

// TestBaselinesHandCase checks both kinds against the hand computation.
// OLS: x̄ = 1.5, ȳ = 2.75, Sxy = 5.5, Sxx = 5, so β = 1.1, β₀ = 1.1; the
// residuals −0.1, 0.8, −1.3, 0.6 give RSS = 2.7 and, with rank 2 (the zero
// column adds none), σ² = 2.7/2 = 1.35. At x = 4 the prediction is 5.5,
// error −0.5 (×2 on the original scale). Constant: ŷ = 2.75,
// σ² = 8.75/3, error 2.25 (×2).
func TestBaselinesHandCase(t *testing.T) {
	for _, tc := range []struct {
		kind        string
		err, sigma2 float64
	}{
		{KindOLS, -0.5, 1.35},
		{KindConstant, 2.25, 8.75 / 3},
	} {
		d, XTest, yTest := baselineData()
		out, err := runBaseline(tc.kind)(context.Background(), harness.Input[BaselineConfig]{
			Problem: &harness.Problem{Target: d.BNN, Model: d}, Src: rand.NewPCG(1, 1),
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		rmse, ll := d.BNN.Metrics(XTest, yTest, out.Set.X, out.Set.W, d.YMean, d.YSD)
		e, v := 2*tc.err, 4*tc.sigma2 // original scale
		wantLL := -0.5*math.Log(2*math.Pi*v) - e*e/(2*v)
		if math.Abs(rmse-math.Abs(e)) > 1e-12 || math.Abs(ll-wantLL) > 1e-12 {
			t.Errorf("%s: rmse %v, test LL %v; want %v, %v", tc.kind, rmse, ll, math.Abs(e), wantLL)
		}
	}
}

// TestLinearParticleExact checks that the ReLU network of linearParticle
// computes β₀ + βᵀx on random inputs.
func TestLinearParticleExact(t *testing.T) {
	const p, h = 3, 5
	X, y := synthBNN(40, p, 4)
	bnn := model.NewBNN(X, y, h)
	beta := []float64{0.3, -1.2, 0.7, 2.5}
	th := mat.NewDense(1, bnn.Dim(), nil)
	linearParticle(th.RawRowView(0), beta, p, h, 0.5)
	pred := bnn.Predict(nil, X, th, []float64{1}, 0, 1)
	for i, v := range pred {
		r := X.RawRowView(i)
		want := beta[0] + beta[1]*r[0] + beta[2]*r[1] + beta[3]*r[2]
		if math.Abs(v-want) > 1e-13*(1+math.Abs(want)) {
			t.Fatalf("row %d: %v, want %v", i, v, want)
		}
	}
}
