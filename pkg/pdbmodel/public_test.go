package pdbmodel_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/logpdf"
	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
)

// momiq is kidscore_momiq written outside the package with its exported
// helpers, as a user's own model would be.
func momiq(data map[string]json.RawMessage) (*pdbmodel.Model, error) {
	f := pdbmodel.Fields{Data: data}
	n := f.Count("N")
	y := f.Vector("kid_score", n, "N")
	iq := f.Vector("mom_iq", n, "N")
	f.Within("kid_score", y, 0, 200)
	if f.Err() != nil {
		return nil, f.Err()
	}
	X := pdbmodel.Columns(n, pdbmodel.Ones(n), iq)
	coefs := []pdbmodel.Coef{{Name: "beta", Size: 2, Prior: pdbmodel.Flat()}}
	return pdbmodel.LinearRegression("my_momiq", y, X, coefs, "sigma", pdbmodel.Cauchy(0, 2.5), true), nil
}

func momiqData(rng *rand.Rand, n int) map[string]json.RawMessage {
	y, iq := make([]float64, n), make([]float64, n)
	for i := range y {
		iq[i] = 70 + 60*rng.Float64()
		y[i] = 20 + 0.6*iq[i] + 15*rng.NormFloat64()
	}
	b, _ := json.Marshal(map[string]any{"N": n, "kid_score": y, "mom_iq": iq})
	var data map[string]json.RawMessage
	_ = json.Unmarshal(b, &data)
	return data
}

// The exported helpers build the same model as the package's own: the
// regression written outside gives kidscore_momiq's log density and
// gradient, bit for bit, at 200 random points.
func TestExportedHelpersRebuildAModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := momiqData(rng, 40)
	mine, err := momiq(data)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := pdbmodel.New("kidscore_momiq", data)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(mine.Names) != fmt.Sprint(ref.Names) {
		t.Fatalf("names %v, kidscore_momiq's %v", mine.Names, ref.Names)
	}
	g1, g2 := make([]float64, 3), make([]float64, 3)
	for i := 0; i < 200; i++ {
		u := []float64{20 + 5*rng.NormFloat64(), 0.6 + 0.1*rng.NormFloat64(), 2.7 + rng.NormFloat64()}
		l1, l2 := mine.Target.LogProbGrad(u, g1), ref.Target.LogProbGrad(u, g2)
		if l1 != l2 || fmt.Sprint(g1) != fmt.Sprint(g2) {
			t.Fatalf("at %v: %v %v, kidscore_momiq %v %v", u, l1, g1, l2, g2)
		}
	}
}

// Fields' first error names the key at fault and sticks.
func TestFieldsErrors(t *testing.T) {
	data := momiqData(rand.New(rand.NewPCG(3, 4)), 3)
	data["N"] = json.RawMessage("4")
	if _, err := momiq(data); err == nil || !strings.Contains(err.Error(), `"kid_score" has 3 values, want N = 4`) {
		t.Errorf("N = 4 with 3 scores: %v", err)
	}
	delete(data, "N")
	if _, err := momiq(data); err == nil || !strings.Contains(err.Error(), `no key "N"`) {
		t.Errorf("no N: %v", err)
	}
	f := pdbmodel.Fields{Data: map[string]json.RawMessage{"x": json.RawMessage("[1, -2]")}}
	f.Positive("x", f.Vector("x", 2, "2"))
	f.Fail("a later error")
	if f.Err() == nil || f.Err().Error() != `data key "x": element 2 = -2 is not positive` {
		t.Errorf("first error %v", f.Err())
	}
}

// A regression prior is pkg/logpdf's density less its normalising
// constant: its derivative agrees with logpdf's and its log density
// differs from logpdf's by the constant (which is why the package keeps
// its own priors: logpdf's values are not theirs bit for bit).
func TestPriorsAreLogpdfUpToConstants(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 1000; i++ {
		x, loc, sc, nu := 5*rng.NormFloat64(), rng.NormFloat64(), 0.1+5*rng.Float64(), 0.5+10*rng.Float64()
		lp, d := pdbmodel.Normal(loc, sc).LogP(x)
		want, dx, _, _ := logpdf.Normal(x, loc, sc)
		c := -math.Log(sc) - 0.5*math.Log(2*math.Pi)
		if math.Abs(lp+c-want) > 1e-12*math.Max(1, math.Abs(want)) || d != dx {
			t.Fatalf("Normal(%v, %v) at %v: %v %v, logpdf %v %v", loc, sc, x, lp, d, want, dx)
		}
		lp, d = pdbmodel.StudentT(nu, loc, sc).LogP(x)
		want, dx, _, _, _ = logpdf.StudentT(x, nu, loc, sc)
		g1, _ := math.Lgamma((nu + 1) / 2)
		g2, _ := math.Lgamma(nu / 2)
		c = g1 - g2 - 0.5*math.Log(nu*math.Pi) - math.Log(sc)
		if math.Abs(lp+c-want) > 1e-12*math.Max(1, math.Abs(want)) || math.Abs(d-dx) > 1e-14*math.Max(1, math.Abs(dx)) {
			t.Fatalf("StudentT(%v, %v, %v) at %v: %v %v, logpdf %v %v", nu, loc, sc, x, lp, d, want, dx)
		}
		if lp, d := pdbmodel.Flat().LogP(x); lp != 0 || d != 0 {
			t.Fatalf("Flat at %v: %v %v", x, lp, d)
		}
	}
}

// A prior's scale or degrees of freedom that is not positive and finite
// panics, naming the prior and the value.
func TestPriorBadScalePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Normal scale 0":   func() { pdbmodel.Normal(0, 0) },
		"StudentT nu NaN":  func() { pdbmodel.StudentT(math.NaN(), 0, 1) },
		"Cauchy scale -1":  func() { pdbmodel.Cauchy(0, -1) },
		"Normal scale Inf": func() { pdbmodel.Normal(0, math.Inf(1)) },
	} {
		msg := func() (msg string) {
			defer func() { msg, _ = recover().(string) }()
			f()
			return ""
		}()
		if !strings.HasPrefix(msg, "pdbmodel: ") || !strings.Contains(msg, " prior: ") {
			t.Errorf("%s: panic %q", name, msg)
		}
	}
}

// A model of one's own from the exported helpers: a normal regression of y
// on x read from a posteriordb data object.
func ExampleLinearRegression() {
	var data map[string]json.RawMessage
	_ = json.Unmarshal([]byte(`{"N": 3, "x": [1, 2, 3], "y": [1.1, 1.9, 3.2]}`), &data)
	f := pdbmodel.Fields{Data: data}
	n := f.Count("N")
	x, y := f.Vector("x", n, "N"), f.Vector("y", n, "N")
	if f.Err() != nil {
		fmt.Println(f.Err())
		return
	}
	X := pdbmodel.Columns(n, pdbmodel.Ones(n), x)
	coefs := []pdbmodel.Coef{
		{Name: "alpha", Prior: pdbmodel.Normal(0, 10)},
		{Name: "beta", Prior: pdbmodel.Normal(0, 10)},
	}
	m := pdbmodel.LinearRegression("line", y, X, coefs, "sigma", pdbmodel.Cauchy(0, 2.5), true)
	fmt.Println(m.Names, m.UnconstrainedNames)
	// Output:
	// [alpha beta sigma] [alpha beta sigma]
}
