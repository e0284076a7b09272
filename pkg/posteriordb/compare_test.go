package posteriordb

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// gaussReference returns C chains of n exact draws of g.
func gaussReference(t testing.TB, g *target.Gaussian, rng *rand.Rand, C, n int) *Reference {
	t.Helper()
	d := g.Dim()
	var chains []*mat.Dense
	names := make([]string, d)
	for j := range names {
		names[j] = "x[" + string(rune('1'+j)) + "]"
	}
	for c := 0; c < C; c++ {
		ch := mat.NewDense(n, d, nil)
		g.SampleRows(rng, ch)
		chains = append(chains, ch)
	}
	r, err := NewReference(names, chains)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestErrorsFormulas checks the moments and errors of a weighted set
// against the formulas of the package documentation, on values small
// enough to follow by hand.
func TestErrorsFormulas(t *testing.T) {
	// Reference: one parameter, chains {0, 2, 4, 6} and {1, 3, 5, 7}:
	// mean 3.5, sample sd √6.
	ref, err := NewReference([]string{"a"}, []*mat.Dense{
		mat.NewDense(4, 1, []float64{0, 2, 4, 6}), mat.NewDense(4, 1, []float64{1, 3, 5, 7}),
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewComparison(ref, CompareSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Mean[0] != 3.5 || math.Abs(c.SD[0]-math.Sqrt(6)) > 1e-15 {
		t.Fatalf("reference moments %v %v", c.Mean, c.SD)
	}
	wantMCSE := metric.MCSE(ref.ChainViews(0, 2), nil)[0]
	if c.MCSE[0] != wantMCSE {
		t.Errorf("reference MCSE %v, metric.MCSE %v", c.MCSE[0], wantMCSE)
	}
	// Set {1, 5} with weights ½, 1½ (W = 2): mean 4, variance
	// (½·9 + 1½·1)/2 = 3.
	X := mat.NewDense(2, 1, []float64{1, 5})
	w := []float64{0.5, 1.5}
	for _, tc := range []struct {
		own  Own
		mcse float64
	}{{Own{}, 0}, {Own{MCSE: []float64{0.25}}, 0.25}, {Own{ESS: []float64{12}}, 0.5}} {
		e := c.Errors(nil, X, w, tc.own)
		if e.Mean[0] != 4 || math.Abs(e.SD[0]-math.Sqrt(3)) > 1e-15 {
			t.Fatalf("moments %v %v", e.Mean, e.SD)
		}
		if math.Abs(e.MeanErr[0]-0.5/math.Sqrt(6)) > 1e-15 ||
			math.Abs(e.MeanZ[0]-0.5/math.Hypot(wantMCSE, tc.mcse)) > 1e-14 ||
			math.Abs(e.SDRatio[0]-math.Sqrt(3)/math.Sqrt(6)) > 1e-15 {
			t.Errorf("own %+v: errors %+v", tc.own, e)
		}
	}
	// A set whose weights do not have a positive sum has no moments.
	e := c.Errors(nil, X, []float64{1, -1}, Own{})
	if !math.IsNaN(e.Mean[0]) || !math.IsNaN(e.Summary().MaxMeanErr) || !math.IsNaN(e.Summary().MinSDRatio) {
		t.Errorf("weights summing to 0: %+v", e)
	}
	// Reusing dst allocates nothing.
	dst := c.Errors(nil, X, w, Own{})
	if a := race.AllocsPerRun(t, 10, func() { c.Errors(dst, X, w, Own{}) }); a != 0 {
		t.Errorf("Errors with dst allocates %v times", a)
	}
}

// TestMMD2BruteForce checks the MMD² and its floor against a direct sum
// of the kernel over standardised draws.
func TestMMD2BruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b"}
	var chains []*mat.Dense
	for c := 0; c < 4; c++ {
		chains = append(chains, testutil.RandDense(rng, 5, 2))
	}
	ref, err := NewReference(names, chains)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewComparison(ref, CompareSettings{})
	if err != nil {
		t.Fatal(err)
	}
	std := func(X mat.Matrix) [][]float64 {
		n, d := X.Dims()
		out := make([][]float64, n)
		for i := range out {
			out[i] = make([]float64, d)
			for j := range out[i] {
				out[i][j] = (X.At(i, j) - c.Mean[j]) / c.SD[j]
			}
		}
		return out
	}
	k := func(u, v []float64) float64 {
		var s float64
		for j := range u {
			s += (u[j] - v[j]) * (u[j] - v[j])
		}
		return math.Exp(-s / (2 * c.Bandwidth * c.Bandwidth))
	}
	mmd := func(U []([]float64), w []float64, V [][]float64) float64 {
		var xx, xy, yy float64
		for i := range U {
			for j := range U {
				xx += w[i] * w[j] * k(U[i], U[j])
			}
			for s := range V {
				xy += w[i] * k(U[i], V[s])
			}
		}
		for s := range V {
			for r := range V {
				yy += k(V[s], V[r])
			}
		}
		S := float64(len(V))
		return xx - 2*xy/S + yy/(S*S)
	}
	X := testutil.RandDense(rng, 3, 2)
	w := []float64{0.2, 0.5, 0.4} // need not sum to one
	if got, want := c.MMD2(X, w), mmd(std(X), w, std(ref.Draws)); math.Abs(got-want) > 1e-12 {
		t.Errorf("MMD² %v, direct %v", got, want)
	}
	// The floor: chains 3–4 (equal weights) against chains 1–2.
	B := std(ref.Draws.Slice(10, 20, 0, 2))
	eq := slices.Repeat([]float64{0.1}, 10)
	if got, want := c.Floor.MMD2, mmd(B, eq, std(ref.Draws.Slice(0, 10, 0, 2))); math.Abs(got-want) > 1e-12 {
		t.Errorf("floor %v, direct %v", got, want)
	}
	// The median heuristic: the root of the median squared distance
	// between distinct pairs of the 20 standardised draws (190 pairs: the
	// mean of the middle two, as kernel.MedianDistance takes it).
	U := std(ref.Draws)
	var sq []float64
	for i := range U {
		for j := i + 1; j < len(U); j++ {
			var s float64
			for l := range U[i] {
				s += (U[i][l] - U[j][l]) * (U[i][l] - U[j][l])
			}
			sq = append(sq, s)
		}
	}
	slices.Sort(sq)
	if med := math.Sqrt((sq[len(sq)/2-1] + sq[len(sq)/2]) / 2); math.Abs(c.Bandwidth-med) > 1e-12 {
		t.Errorf("bandwidth %v, median distance %v", c.Bandwidth, med)
	}
}

// TestExactAndShifted scores exact draws of a Gaussian reference and the
// same draws shifted by half a standard deviation, with tolerances from
// the Monte Carlo error.
func TestExactAndShifted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g := testutil.Gaussian(t, rng, 3)
	ref := gaussReference(t, g, rng, 4, 1000)
	c, err := NewComparison(ref, CompareSettings{})
	if err != nil {
		t.Fatal(err)
	}
	n := 2000
	X := mat.NewDense(n, 3, nil)
	g.SampleRows(rng, X)
	ess := []float64{float64(n), float64(n), float64(n)}
	s := c.Score(X, nil, Own{ESS: ess})
	// z is standard normal per parameter: P(max of 3 |z| > 4) < 2·10⁻⁴.
	// The sd ratio's standard error is √(1/(2n) + 1/(2S)) ≈ 0.019.
	if !(s.MaxMeanZ < 4) || !(s.MinSDRatio > 1-4*0.019) || !(s.MaxSDRatio < 1+4*0.019) {
		t.Errorf("exact draws: %+v", s)
	}
	// E MMD² ≈ (1/n + 1/S)(1 − E k) for exact draws, 3/4 of the floor's
	// (1/2000 + 1/2000)(1 − E k).
	if !(s.MMD2 < 3*c.Floor.MMD2) || !(c.Floor.MMD2 > 0) {
		t.Errorf("exact draws MMD² %v, floor %v", s.MMD2, c.Floor.MMD2)
	}
	f := c.Floor
	if !(f.MaxMeanZ < 4) || !(f.MinSDRatio > 1-4*0.022) || !(f.MaxSDRatio < 1+4*0.022) {
		t.Errorf("floor %+v", f)
	}
	// Shift the first parameter by half its sd.
	sh := mat.DenseCopyOf(X)
	for i := 0; i < n; i++ {
		sh.Set(i, 0, sh.At(i, 0)+0.5*c.SD[0])
	}
	e := c.Errors(nil, sh, nil, Own{ESS: ess})
	// Its mean error is 0.5 ± √(1/n + 1/S) ≈ 0.027 (four standard errors).
	if math.Abs(e.MeanErr[0]-0.5) > 4*0.027 || !(e.MeanZ[0] > 10) {
		t.Errorf("shifted: mean error %v, z %v", e.MeanErr[0], e.MeanZ[0])
	}
	if m := c.MMD2(sh, nil); !(m > 20*c.Floor.MMD2) {
		t.Errorf("shifted MMD² %v, floor %v", m, c.Floor.MMD2)
	}
}

func TestCompareSettings(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g := testutil.Gaussian(t, rng, 2)
	ref := gaussReference(t, g, rng, 4, 300)
	c, err := NewComparison(ref, CompareSettings{MMDDraws: 400, Bandwidth: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	if c.Draws != 400 || c.Bandwidth != 0.7 || !(c.Floor.MMD2 > 0) {
		t.Errorf("draws %d, bandwidth %v, floor %v", c.Draws, c.Bandwidth, c.Floor.MMD2)
	}
	rows := spread(ref.Bounds, 400)
	for ch := 0; ch < 4; ch++ {
		var in []int
		for _, r := range rows {
			if r >= ref.Bounds[ch] && r < ref.Bounds[ch+1] {
				in = append(in, r-ref.Bounds[ch])
			}
		}
		if len(in) != 100 || in[0] != 0 || in[1] != 3 || in[99] != 297 {
			t.Errorf("chain %d rows %v", ch, in)
		}
	}
	if _, err := NewComparison(ref, CompareSettings{MMDDraws: -1}); err == nil {
		t.Error("negative MMDDraws accepted")
	}
	// One chain: the floor compares its halves.
	one, err := NewReference([]string{"a"}, []*mat.Dense{mat.NewDense(6, 1, []float64{1, 2, 3, 4, 5, 7})})
	if err != nil {
		t.Fatal(err)
	}
	c1, err := NewComparison(one, CompareSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c1.Floor.MaxMeanErr, (16.0/3-2)/c1.SD[0]; math.Abs(got-want) > 1e-12 {
		t.Errorf("one chain: floor mean error %v, want %v", got, want)
	}
	if !math.IsNaN(c1.Floor.MaxMeanZ) {
		t.Errorf("halves of 3 draws have no split-chain MCSE, got z %v", c1.Floor.MaxMeanZ)
	}
	// A parameter that does not vary, and bad references.
	flat, _ := NewReference([]string{"a", "b"}, []*mat.Dense{mat.NewDense(3, 2, []float64{1, 5, 2, 5, 3, 5})})
	if _, err := NewComparison(flat, CompareSettings{}); err == nil || !strings.Contains(err.Error(), "the reference draws of b do not vary") {
		t.Errorf("constant parameter: %v", err)
	}
	for _, bad := range []func() error{
		func() error { _, err := NewReference(nil, []*mat.Dense{mat.NewDense(1, 1, nil)}); return err },
		func() error {
			_, err := NewReference([]string{"a", "a"}, []*mat.Dense{mat.NewDense(1, 2, nil)})
			return err
		},
		func() error {
			_, err := NewReference([]string{"a"}, []*mat.Dense{mat.NewDense(2, 1, nil), mat.NewDense(3, 1, nil)})
			return err
		},
		func() error {
			_, err := NewReference([]string{"a"}, []*mat.Dense{mat.NewDense(1, 1, []float64{math.NaN()})})
			return err
		},
		func() error { _, err := NewComparison(nil, CompareSettings{}); return err },
	} {
		if bad() == nil {
			t.Error("bad reference accepted")
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "posteriordb: 3 columns, want 2") {
			t.Errorf("panic %v", r)
		}
	}()
	c.MMD2(mat.NewDense(1, 3, nil), nil)
}

// BenchmarkNewComparison prepares a reference of posteriordb's size,
// 10 chains × 1,000 draws, in d = 10.
func BenchmarkNewComparison(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := testutil.Gaussian(b, rng, 10)
	ref := gaussReference(b, g, rng, 10, 1000)
	b.ResetTimer()
	cpu := testutil.StartCPU()
	for i := 0; i < b.N; i++ {
		if _, err := NewComparison(ref, CompareSettings{}); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b)
}

// BenchmarkScore100 scores 100 particles against it (every score, the
// MMD² included).
func BenchmarkScore100(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	g := testutil.Gaussian(b, rng, 10)
	ref := gaussReference(b, g, rng, 10, 1000)
	c, err := NewComparison(ref, CompareSettings{})
	if err != nil {
		b.Fatal(err)
	}
	X := mat.NewDense(100, 10, nil)
	g.SampleRows(rng, X)
	b.ResetTimer()
	cpu := testutil.StartCPU()
	for i := 0; i < b.N; i++ {
		c.Score(X, nil, Own{})
	}
	cpu.Report(b)
}
