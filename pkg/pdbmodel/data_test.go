package pdbmodel

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/internal/race"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// Bad data gets an error naming the model and the key at fault.
func TestDataErrors(t *testing.T) {
	for _, tc := range []struct {
		model string
		data  map[string]json.RawMessage
		want  string
	}{
		{"arK", map[string]json.RawMessage{"K": raw("2"), "y": raw("[1,2,3]")}, `model arK: data has no key "T"`},
		{"arK", map[string]json.RawMessage{"K": raw("2"), "T": raw("4"), "y": raw("[1,2,3]")}, `data key "y" has 3 values, want T = 4`},
		{"arK", map[string]json.RawMessage{"K": raw("0"), "T": raw("3"), "y": raw("[1,2,3]")}, `data key "K" = 0: the model needs at least one lag`},
		{"arK", map[string]json.RawMessage{"K": raw("1.5"), "T": raw("3"), "y": raw("[1,2,3]")}, `data key "K" = 1.5: want a non-negative integer`},
		{"arma11", map[string]json.RawMessage{"T": raw("2"), "y": raw(`[1,"a"]`)}, `model arma11: data key "y": json: cannot unmarshal`},
		{"kidscore_momiq", map[string]json.RawMessage{"N": raw("2"), "kid_score": raw("[1,201]"), "mom_iq": raw("[90,100]")}, `data key "kid_score": element 2 = 201 is outside [0, 200]`},
		{"logearn_interaction", map[string]json.RawMessage{"N": raw("2"), "earn": raw("[0,10]"), "height": raw("[60,70]"), "male": raw("[0,1]")}, `data key "earn": element 1 = 0 has no logarithm`},
		{"blr", map[string]json.RawMessage{"N": raw("2"), "D": raw("2"), "X": raw("[[1,2],[3]]"), "y": raw("[1,2]")}, `data key "X": row 2 has 1 values, want D = 2`},
		{"blr", map[string]json.RawMessage{"N": raw("2"), "D": raw("2"), "X": raw("[[1,2]]"), "y": raw("[1,2]")}, `data key "X" has 1 rows, want N = 2`},
		{"eight_schools_noncentered", map[string]json.RawMessage{"J": raw("2"), "y": raw("[1,2]"), "sigma": raw("[1,0]")}, `data key "sigma": element 2 = 0 is not positive`},
		{"garch11", map[string]json.RawMessage{"T": raw("2"), "y": raw("[1,2]"), "sigma1": raw("-1")}, `data key "sigma1" = -1: want a non-negative number`},
		{"kilpisjarvi", map[string]json.RawMessage{"N": raw("1"), "x": raw("[1]"), "y": raw("[1]"), "pmualpha": raw("0"), "psalpha": raw("0"), "pmubeta": raw("0"), "psbeta": raw("1")}, "prior scales must be positive"},
		{"nes", map[string]json.RawMessage{"N": raw("1"), "partyid7": raw("[1]"), "real_ideo": raw("[1]"), "race_adj": raw("[1]"), "educ1": raw("[1]"), "gender": raw("[1]"), "income": raw("[1]"), "age_discrete": raw("[2.5]")}, `data key "age_discrete": element 1 = 2.5 is not an integer`},
		{"diamonds", map[string]json.RawMessage{"N": raw("1"), "K": raw("1"), "Y": raw("[1]"), "X": raw("[[1]]"), "prior_only": raw("0")}, `data key "K" = 1: the model needs the intercept column`},
	} {
		_, err := New(tc.model, tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.model, err, tc.want)
		}
	}
}

// R's JSON writers give a vector of one as a bare number, and a scalar
// sometimes as an array of one: both read.
func TestDataBoxing(t *testing.T) {
	m, err := New("eight_schools_noncentered", map[string]json.RawMessage{"J": raw("[1]"), "y": raw("28"), "sigma": raw("[15]")})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Names, " "); got != "theta[1] mu tau" {
		t.Errorf("names %s", got)
	}
}

// brms's prior_only leaves the likelihood out.
func TestDiamondsPriorOnly(t *testing.T) {
	var c modelCase
	for _, k := range cases {
		if k.model == "diamonds" {
			c = k
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	syn := c.synth(rng)
	syn["prior_only"] = 1
	d := toData(t, syn)
	m, err := New("diamonds", d)
	if err != nil {
		t.Fatal(err)
	}
	if e := checkLogDensity(t, m, c, d, initPoints(m, rng, 4)); e > 1e-12 {
		t.Errorf("relative error %.2g", e)
	}
	if e := checkGradient(t, m, initPoints(m, rng, 4), fdStep); e > gradTol {
		t.Errorf("gradient relative error %.2g", e)
	}
}

// Every model evaluates without allocating.
func TestNoAllocation(t *testing.T) {
	for i, c := range cases {
		rng := rand.New(rand.NewPCG(uint64(i), 3))
		m, err := New(c.model, toData(t, c.synth(rng)))
		if err != nil {
			t.Fatal(err)
		}
		u := make([]float64, m.Target.Dim())
		m.Init(rng, u)
		g := make([]float64, len(u))
		m.Target.LogProbGrad(u, g)
		if n := race.AllocsPerRun(t, 20, func() { m.Target.LogProbGrad(u, g) }); n != 0 {
			t.Errorf("%s: LogProbGrad allocates %v times per call", c.model, n)
		}
	}
}

// Fewer rows than coefficients (a rank-deficient design): the QR form of
// the regressions still gives the Stan code's density and gradient.
func TestRegressionFewRows(t *testing.T) {
	var c modelCase
	for _, k := range cases {
		if k.model == "blr" {
			c = k
		}
	}
	rng := rand.New(rand.NewPCG(2, 2))
	X := [][]float64{{1, 2, 3, 4}, {0.5, -1, 2, 0}}
	d := toData(t, map[string]any{"N": 2, "D": 4, "X": X, "y": []float64{1, -2}})
	m, err := New("blr", d)
	if err != nil {
		t.Fatal(err)
	}
	if e := checkLogDensity(t, m, c, d, initPoints(m, rng, 4)); e > 1e-12 {
		t.Errorf("log density relative error %.2g", e)
	}
	if e := checkGradient(t, m, initPoints(m, rng, 4), fdStep); e > gradTol {
		t.Errorf("gradient relative error %.2g", e)
	}
}
