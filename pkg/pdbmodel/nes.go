package pdbmodel

import (
	"encoding/json"
	"math"
)

func init() { register("nes", nes) }

// nes is ARM's party identification on ideology, race, age group,
// education, gender and income (posteriordb data nes1972 … nes2000, any
// year), under flat priors on β and on σ > 0; the age groups 2, 3, 4 of
// age_discrete become indicator columns (group 1 is the baseline):
//
//	partyid7 ~ N(β₁ + β₂ real_ideo + β₃ race_adj + β₄ 1[age = 2] + β₅ 1[age = 3]
//	             + β₆ 1[age = 4] + β₇ educ1 + β₈ gender + β₉ income, σ).
func nes(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	n := f.Count("N")
	y := f.Vector("partyid7", n, "N")
	ideo := f.Vector("real_ideo", n, "N")
	race := f.Vector("race_adj", n, "N")
	educ := f.Vector("educ1", n, "N")
	gender := f.Vector("gender", n, "N")
	income := f.Vector("income", n, "N")
	age := f.Vector("age_discrete", n, "N")
	if f.Err() != nil {
		return nil, f.Err()
	}
	a2, a3, a4 := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, a := range age {
		if a != math.Trunc(a) {
			f.Fail("data key %q: element %d = %v is not an integer", "age_discrete", i+1, a)
		}
		a2[i], a3[i], a4[i] = indicator(a == 2), indicator(a == 3), indicator(a == 4)
	}
	if f.Err() != nil {
		return nil, f.Err()
	}
	X := Columns(n, Ones(n), ideo, race, a2, a3, a4, educ, gender, income)
	return LinearRegression("nes", y, X, []Coef{{"beta", 9, Flat()}}, "sigma", Flat(), true), nil
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
