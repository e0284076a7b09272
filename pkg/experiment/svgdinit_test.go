package experiment

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/model"
)

// TestLogisticReferenceInit checks the reference logistic start against its
// closed form: α₀ ~ Gamma(1, scale 0.01) has mean 0.01 and sd 0.01, so the
// mean of 4000 draws is 0.01 within 4·0.01/√4000 = 6.3e-4; given α₀, every
// wⱼ√α₀ is standard normal, so the mean of wⱼ²α₀ over 4000·3 values is 1
// within 4·√(2/12000) = 0.052. The prior start ("prior", rate 0.01) has
// mean α 100: the two differ by four decades.
func TestLogisticReferenceInit(t *testing.T) {
	X := mat.NewDense(5, 3, nil)
	y := []float64{1, -1, 1, -1, 1}
	m := model.NewLogistic(X, y)
	const n = 4000
	P := logisticReferenceInit(m, n, rand.New(rand.NewPCG(3, 4)))
	var ma, mw float64
	for i := 0; i < n; i++ {
		r := P.RawRowView(i)
		a := math.Exp(r[3])
		ma += a
		for _, w := range r[:3] {
			mw += w * w * a
		}
	}
	ma /= n
	mw /= 3 * n
	if math.Abs(ma-0.01) > 4*0.01/math.Sqrt(n) {
		t.Errorf("mean α₀ = %v, want 0.01", ma)
	}
	if math.Abs(mw-1) > 4*math.Sqrt(2.0/(3*n)) {
		t.Errorf("mean w²α₀ = %v, want 1", mw)
	}

	// Through the wiring: "reference" on a logistic dataset gives these
	// draws, "prior" leaves the prior to the method, "reference" on a BNN
	// is the BNN start.
	d := NewLogisticData(Info{}, m, nil, nil, nil, nil)
	got, err := d.Start(InitReference, 2, rand.New(rand.NewPCG(3, 4)))
	if err != nil || got == nil || !mat.Equal(got, P.Slice(0, 2, 0, 4)) {
		t.Errorf("Start(reference) = %v, %v; want the first two draws", got, err)
	}
	if got, err := d.Start("prior", 2, nil); got != nil || err != nil {
		t.Errorf("Start(prior) = %v, %v; want nil, nil", got, err)
	}
	if got, err := d.Start("model", 2, nil); got != nil || err == nil {
		t.Errorf("Start(model) on a logistic model = %v, %v; want an error", got, err)
	}
	Xb, yb := synthBNN(20, 2, 1)
	db := NewBNNData(Info{}, model.NewBNN(Xb, yb, 3), Xb, yb, nil, nil, nil, nil, 0, 1)
	a, err := db.Start(InitReference, 2, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := db.Start("model", 2, rand.New(rand.NewPCG(1, 1)))
	if !mat.Equal(a, b) {
		t.Errorf("reference and model starts of a BNN differ")
	}
}
