package experiment

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// TestMeanSD checks the standardisation statistics against hand values:
// [1 2 3 4] has mean 2.5 and population sd √1.25; a constant column gets
// its value as mean and scale 1, so it standardises to exactly 0.
func TestMeanSD(t *testing.T) {
	m, s := meanSD([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(s-math.Sqrt(1.25)) > 1e-15 {
		t.Errorf("meanSD([1 2 3 4]) = %v, %v; want 2.5, %v", m, s, math.Sqrt(1.25))
	}
	v := 0.1 + 0.2 // not representable as a sum mean exactly
	m, s = meanSD([]float64{v, v, v, v, v, v, v})
	if m != v || s != 1 {
		t.Errorf("constant column: %v, %v; want %v, 1", m, s, v)
	}
}

// synthBNN returns n standardised rows of p features and responses of a
// smooth function with noise.
func synthBNN(n, p int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		r := X.RawRowView(i)
		for j := range r {
			r[j] = rng.NormFloat64()
		}
		y[i] = math.Sin(r[0]) + 0.5*r[1] + 0.1*rng.NormFloat64()
	}
	return X, y
}

// TestFrameToCell checks the exact re-expression of a network trained in
// the frame of the N₀ rows: on any cell-standardised input, the mapped
// network's original-scale prediction equals the frame network's, and the
// mapped log γ gives the intended original-scale variance.
func TestFrameToCell(t *testing.T) {
	const p, h, n = 3, 4, 60
	X, y := synthBNN(n, p, 1)
	// Shift and scale the rows so that the frame differs from identity.
	for i := 0; i < n; i++ {
		r := X.RawRowView(i)
		r[0] = 2*r[0] + 1
		r[2] = 0.5*r[2] - 3
		y[i] = 3*y[i] - 2
	}
	f := newFrame(X, y)
	const yMean, ySD = 10.0, 4.0
	sub := model.NewBNN(f.apply(X), y, h)
	cell := model.NewBNN(X, y, h)
	rng := rand.New(rand.NewPCG(7, 7))
	d := sub.Dim()
	th := make([]float64, d)
	for j := range th {
		th[j] = rng.NormFloat64()
	}
	out := make([]float64, d)
	f.toCell(out, th, p, h, 1.25)
	Xt, _ := synthBNN(25, p, 2)
	want := sub.Predict(nil, f.apply(Xt), mat.NewDense(1, d, th), []float64{1}, f.ay*ySD+yMean, f.sy*ySD)
	got := cell.Predict(nil, Xt, mat.NewDense(1, d, out), []float64{1}, yMean, ySD)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("row %d: mapped prediction %v, frame prediction %v", i, got[i], want[i])
		}
	}
	if out[d-2] != 1.25 || out[d-1] != th[d-1] {
		t.Errorf("log γ, log λ = %v, %v; want 1.25, %v", out[d-2], out[d-1], th[d-1])
	}
}

// TestDevLogGamma checks the development step on a network whose
// prediction is the constant b2·ySD + yMean: with development targets
// {1, 2, 4} and prediction 2 the mean squared error is 5/3, so the chosen
// log γ is −log(5/3) unless the trained value already attains the same
// likelihood (a tie keeps the trained value).
func TestDevLogGamma(t *testing.T) {
	const p, h = 2, 3
	X, y := synthBNN(10, p, 3)
	sub := model.NewBNN(X, y, h)
	d := sub.Dim()
	th := make([]float64, d)
	th[p*h+2*h] = 0.5 // b2: prediction 0.5·2 + 1 = 2
	th[d-2] = 3
	XDev := mat.NewDense(3, p, []float64{1, 2, 3, 4, 5, 6})
	yDev := []float64{1, 2, 4}
	got := devLogGamma(sub, th, XDev, yDev, 1, 2)
	if want := -math.Log(5.0 / 3); math.Abs(got-want) > 1e-15 {
		t.Errorf("development log γ = %v, want %v", got, want)
	}
	th[d-2] = -math.Log(5.0 / 3)
	if got := devLogGamma(sub, th, XDev, yDev, 1, 2); got != th[d-2] {
		t.Errorf("tie: %v, want the trained %v", got, th[d-2])
	}
}

// anchorInput builds the input of runSVGDAnchor on a synthetic problem of
// n training rows.
func anchorInput(X *mat.Dense, y []float64, rec particle.Recorder) harness.Input[SVGDAnchorConfig] {
	bnn := model.NewBNN(X, y, 5)
	Xt, yt := synthBNN(30, 3, 9)
	for i := range yt {
		yt[i] = yt[i]*2 + 1
	}
	d := NewBNNData(Info{Name: "synth"}, bnn, X, y, Xt, yt, nil, nil, 1, 2)
	return harness.Input[SVGDAnchorConfig]{
		Problem:  &harness.Problem{Target: bnn, Model: d},
		Settings: SVGDAnchorConfig{},
		N:        6, Threads: 1,
		Src:      rand.NewPCG(11, 12),
		Recorder: rec,
	}
}

// TestSVGDAnchorDevelopmentRows runs the arm on 300 rows (30 development
// rows) twice, the second time with other responses on the development
// rows only: the trained networks are the same bit for bit (the
// development rows never reach training), and the final log γ is the
// development choice, −log of the development mean squared error on the
// original scale (plus 2 log YSD in the cell's scale), because that is the
// maximiser of the development likelihood.
func TestSVGDAnchorDevelopmentRows(t *testing.T) {
	const n = 300
	X, y := synthBNN(n, 3, 5)
	in := anchorInput(X, y, nil)
	in.Settings.Iterations = 50
	a, err := runSVGDAnchor(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	y2 := append([]float64(nil), y...)
	for i := n - DevelopmentRows(n); i < n; i++ {
		y2[i] += 1.5
	}
	in2 := anchorInput(X, y2, nil)
	in2.Settings.Iterations = 50
	b, err := runSVGDAnchor(context.Background(), in2)
	if err != nil {
		t.Fatal(err)
	}
	rows, dim := a.Set.X.Dims()
	d := in.Problem.Model.(*BNNData)
	m := DevelopmentRows(n)
	for i := 0; i < rows; i++ {
		ra, rb := a.Set.X.RawRowView(i), b.Set.X.RawRowView(i)
		for j := 0; j < dim; j++ {
			if j != dim-2 && ra[j] != rb[j] {
				t.Fatalf("particle %d coordinate %d: %v and %v differ", i, j, ra[j], rb[j])
			}
		}
		if ra[dim-2] == rb[dim-2] {
			t.Errorf("particle %d: log γ did not follow the development rows", i)
		}
		// The mapped particle predicts in the cell's standardisation.
		pred := d.BNN.Predict(nil, X.Slice(n-m, n, 0, 3).(*mat.Dense), mat.NewDense(1, dim, ra), []float64{1}, d.YMean, d.YSD)
		var sse float64
		for k, v := range pred {
			r := v - (y[n-m+k]*d.YSD + d.YMean)
			sse += r * r
		}
		want := -math.Log(sse/float64(m)) + 2*math.Log(d.YSD)
		if math.Abs(ra[dim-2]-want) > 1e-9 {
			t.Errorf("particle %d: log γ %v, want %v", i, ra[dim-2], want)
		}
	}
}

// TestSVGDAnchorValidation refuses the keys the kind implies or forbids,
// naming them.
func TestSVGDAnchorValidation(t *testing.T) {
	for _, tc := range []struct {
		settings, key string
	}{
		{`{ sequential = true }`, "sequential"},
		{`{ batch = -1 }`, "batch"},
		{`{ step_size = -1.0 }`, "step_size"},
	} {
		src := "id = \"v\"\ndatasets = [\"bostonHousing\"]\nsplits = [0]\n[eval]\nmetrics = [\"rmse\"]\n[methods.m]\nkind = \"svgd-anchor\"\nsettings = " + tc.settings + "\n"
		_, err := harness.Load(testRegistry, "v.toml", []byte(src), "")
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: error %v, want one naming %s", tc.settings, err, tc.key)
		}
	}
}
