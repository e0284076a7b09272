package paper

import (
	"math"
	"strings"
	"testing"
)

// Paired on hand values: d = 1, 2, 3 has mean 2, sd 1, and the 95 %
// interval 2 ± t_{0.975,2}·1/√3 with t_{0.975,2} = 4.302653.
func TestPairedHand(t *testing.T) {
	p := Paired([]float64{1, 2, 3})
	h := 4.302652729911275 / math.Sqrt(3)
	if p.N != 3 || !near(p.Mean, 2, 1e-14) || !near(p.SD, 1, 1e-14) || !near(p.Lo, 2-h, 1e-9) || !near(p.Hi, 2+h, 1e-9) {
		t.Errorf("Paired = %+v, want mean 2, sd 1, [%v, %v]", p, 2-h, 2+h)
	}
	if p.Pos != 3 || p.Neg != 0 || !near(p.SignP, 0.25, 1e-15) {
		t.Errorf("sign test %d+ %d− p %v, want 3+ 0− p 0.25", p.Pos, p.Neg, p.SignP)
	}
	if q := Paired([]float64{0.5}); q.N != 1 || !math.IsNaN(q.Lo) || !math.IsNaN(q.Hi) || (Band{Tau: 0.1}).Outcome(q) != Inconclusive {
		t.Errorf("one split: %+v, outcome %s; want no interval, inconclusive", q, (Band{Tau: 0.1}).Outcome(q))
	}
}

// The exact two-sided sign test: 2·P(Bin(n, ½) ≤ min(pos, neg)).
func TestSignTestP(t *testing.T) {
	for _, c := range []struct {
		pos, neg int
		want     float64
	}{{5, 0, 2.0 / 32}, {0, 5, 2.0 / 32}, {4, 1, 2 * 6.0 / 32}, {3, 3, 1}, {0, 0, 1}, {10, 0, 2.0 / 1024}} {
		if got := SignTestP(c.pos, c.neg); !near(got, c.want, 1e-14) {
			t.Errorf("SignTestP(%d, %d) = %v, want %v", c.pos, c.neg, got, c.want)
		}
	}
}

// A band reads an interval: a claim of "better" needs the interval beyond
// +τ; a claim of "about as good" (non-inferiority) the interval above −τ.
func TestBandOutcome(t *testing.T) {
	iv := func(lo, hi float64) PairedStats { return PairedStats{N: 5, Lo: lo, Hi: hi} }
	sup, ni := Band{Tau: 0.1}, Band{Tau: 0.1, NonInferiority: true}
	for _, c := range []struct {
		b      Band
		lo, hi float64
		want   Outcome
	}{
		{sup, 0.2, 0.5, Better}, {sup, 0.05, 0.5, Inconclusive}, {sup, -0.05, 0.05, Inconclusive}, {sup, -0.5, -0.2, Worse},
		{ni, -0.05, 0.3, Better}, {ni, -0.2, 0.3, Inconclusive}, {ni, -0.5, -0.2, Worse},
	} {
		if got := c.b.Outcome(iv(c.lo, c.hi)); got != c.want {
			t.Errorf("%+v on [%v, %v]: %s, want %s", c.b, c.lo, c.hi, got, c.want)
		}
	}
}

// Tally.Decide's boundary: "more than half" of the same-start contrasts
// better. Exactly half (2 of 4, 3 of 6, 2 of 4 beside one across starts
// that does not count) is no majority and cannot decide; one more better
// contrast than half (3 of 5, 2 of 3) is supported.
func TestDecideExactlyHalf(t *testing.T) {
	for _, c := range []struct {
		t    Tally
		want Verdict
		why  string
	}{
		{Tally{Better: 2, Inconclusive: 2, MaxSplits: 5}, CannotDecide, "2 of 4 counted contrasts are inconclusive"},
		{Tally{Better: 3, Inconclusive: 3, MaxSplits: 5}, CannotDecide, "3 of 6 counted contrasts are inconclusive"},
		{Tally{Better: 2, Confounded: 2, Factors: []string{"budget"}, MaxSplits: 5}, CannotDecide, "differ in budget in 2 of 4"},
		{Tally{Better: 2, Inconclusive: 1, Confounded: 2, AcrossStarts: 1, Factors: []string{"start"}, MaxSplits: 5}, CannotDecide, "1 of 3 counted contrasts is inconclusive"},
		{Tally{Better: 3, Inconclusive: 2, MaxSplits: 5}, Supported, "3 of 5 contrasts go the claim's way"},
		{Tally{Better: 2, Inconclusive: 1, MaxSplits: 2}, Supported, "2 of 3 contrasts go the claim's way"},
		{Tally{Better: 2, Inconclusive: 1, Confounded: 2, AcrossStarts: 2, Factors: []string{"start"}, MaxSplits: 5}, Supported, "2 of 3 contrasts go the claim's way, none against it; 2 across starts shown"},
	} {
		v, why := c.t.Decide()
		if v != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%+v: %s (%s), want %s (%s)", c.t, v, why, c.want, c.why)
		}
	}
}

// Tally.Decide: supported needs a majority of better with none worse;
// confounded contrasts count in the denominator and keep a claim from
// being decided; one split decides nothing.
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		t    Tally
		want Verdict
		why  string
	}{
		{Tally{}, NotMeasured, "no contrast"},
		{Tally{Better: 3, Inconclusive: 2, MaxSplits: 5}, Supported, "3 of 5"},
		{Tally{Better: 5, Worse: 1, MaxSplits: 5}, NotSupported, "1 of 6 counted contrasts goes against"},
		{Tally{Better: 1, Confounded: 20, Factors: []string{"start"}, MaxSplits: 5}, CannotDecide, "differ in start in 20 of 21"},
		{Tally{Better: 1, Inconclusive: 3, MaxSplits: 5}, CannotDecide, "3 of 4 counted contrasts are inconclusive"},
		{Tally{Better: 3, MaxSplits: 1}, CannotDecide, "one split"},
	} {
		v, why := c.t.Decide()
		if v != c.want || !strings.Contains(why, c.why) {
			t.Errorf("%+v: %s (%s), want %s (%s)", c.t, v, why, c.want, c.why)
		}
	}
}
