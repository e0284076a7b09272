package pdbmodel

import "encoding/json"

func init() { register("logmesquite", logmesquite) }

// logmesquite is ARM's log weight of mesquite bushes on the logs of their
// dimensions and the group indicator (posteriordb data mesquite), under
// flat priors on β and on σ > 0:
//
//	log weight ~ N(β₁ + β₂ log diam1 + β₃ log diam2 + β₄ log canopy_height
//	               + β₅ log total_height + β₆ log density + β₇ group, σ).
func logmesquite(data map[string]json.RawMessage) (*Model, error) {
	f := Fields{Data: data}
	n := f.Count("N")
	logv := func(key string) []float64 { return f.LogOf(key, f.Vector(key, n, "N")) }
	y := logv("weight")
	d1, d2 := logv("diam1"), logv("diam2")
	ch, th := logv("canopy_height"), logv("total_height")
	dens := logv("density")
	group := f.Vector("group", n, "N")
	if f.Err() != nil {
		return nil, f.Err()
	}
	X := Columns(n, Ones(n), d1, d2, ch, th, dens, group)
	return LinearRegression("logmesquite", y, X, []Coef{{"beta", 7, Flat()}}, "sigma", Flat(), true), nil
}
