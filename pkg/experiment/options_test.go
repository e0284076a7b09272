package experiment

import (
	"testing"
)

// SVGD from Laplace draws: on a Gaussian target the Laplace approximation
// at the MAP is the target itself, so the initial particles are exact
// draws, whose expected exact MMD² is below 1/n (k(x, x) = 1); the MAP's
// and the fit's cost is charged from the first snapshot on.
func TestSVGDLaplaceStart(t *testing.T) {
	const n = 100
	res := runExp(t, "", `
id = "lap"
datasets = ["gauss2d"]
splits = [1]
[eval]
metrics = ["mmd2_exact"]
[methods.svgd-laplace]
kind = "svgd"
particles = [100]
settings = { init = "laplace", iterations = 2, step_size = 1e-12 }
`)
	r := res["svgd-laplace/gauss2d"]
	finiteAll(t, "svgd-laplace", r)
	if got := r.series[MMD2Exact][0]; !(got < 3.0/n) {
		t.Errorf("exact MMD² of the Laplace draws %v, want below 3/n = %v", got, 3.0/n)
	}
	s := summaryOf(t, r)
	lap, _ := s["method"].(map[string]any)["laplace"].(map[string]any)
	mp, _ := s["map"].(map[string]any)
	if lap == nil || mp == nil || lap["grad_evals"].(float64) != 4 {
		t.Fatalf("summary %v: want the MAP and a Laplace fit of 2·2 gradients", s)
	}
}
