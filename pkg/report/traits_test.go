package report

import (
	"slices"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// A kind the report has never heard of is ordered and drawn by its
// registered traits alone: a new method needs no edit of the core.
func TestNewKindByTraits(t *testing.T) {
	kinds := harness.KindTable{
		"zeta":  {Legend: 1, OneParticlePerStep: true},
		"alpha": {Legend: 2},
	}
	row := func(step int, v float64) Row { return Row{Step: step, Metric: "m", Value: v} }
	cells := []*Cell{
		// beta has no traits: after both, whatever its name.
		{Prov: &harness.Provenance{Method: "beta", Kind: "beta", Dataset: "d", N: 4, Status: harness.Done}, Rows: []Row{row(4, 9)}},
		{Prov: &harness.Provenance{Method: "alpha", Kind: "alpha", Dataset: "d", N: 4, Status: harness.Done}, Rows: []Row{row(1, 8), row(4, 7)}},
		{Prov: &harness.Provenance{Method: "zeta", Kind: "zeta", Dataset: "d", N: 4, Status: harness.Done}, Rows: []Row{row(1, 3), row(2, 2), row(4, 1)}},
	}
	res := &Results{Cells: cells}
	res.DescribeKinds(kinds)
	names, _ := MethodOrder(res.Cells)
	if want := []string{"zeta", "alpha", "beta"}; !slices.Equal(names, want) {
		t.Errorf("legend order %v, want %v", names, want)
	}
	series := ParticleSeries(res.Cells, "d", "m")
	if len(series) != 3 {
		t.Fatalf("%d series, want 3", len(series))
	}
	// zeta adds one particle per step: its curve is its cell's trajectory;
	// alpha gives its final value at its N.
	if s := series[0]; s.Name != "zeta" || !slices.Equal(s.X, []float64{1, 2, 4}) {
		t.Errorf("zeta's series %v at %v, want the trajectory at 1, 2, 4", s.Name, s.X)
	}
	if s := series[1]; s.Name != "alpha" || !slices.Equal(s.X, []float64{4}) || s.Vals[0][0] != 7 {
		t.Errorf("alpha's series %v at %v %v, want its final value 7 at N = 4", s.Name, s.X, s.Vals)
	}
	// Without traits (Load leaves them unset) every kind is alike.
	res.DescribeKinds(nil)
	if names, _ := MethodOrder(res.Cells); !slices.Equal(names, []string{"alpha", "beta", "zeta"}) {
		t.Errorf("legend order without traits %v, want by name", names)
	}
}
