package mmdfw

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// TestCeilingRule: a set of 10 particles at its ceiling is flagged when its
// KSD² is that of fewer than 10 independent draws, noted otherwise, and
// neither when the stop was reached.
func TestCeilingRule(t *testing.T) {
	for _, c := range []struct {
		equal      float64
		done       bool
		flag, note bool
	}{{5, false, true, false}, {9.9, false, true, false}, {10, false, false, true}, {400, false, false, true}, {1000, true, false, false}} {
		set := particle.Set{X: mat.NewDense(10, 1, nil), W: make([]float64, 10)}
		k := &ksdStop{size: 1000, n: 10, equal: c.equal, done: c.done}
		k.finish(&set)
		if set.Diag.Flagged() != c.flag || (len(set.Diag.Notes) > 0) != c.note {
			t.Errorf("ksd_size %v: flags %q notes %v, want flag %v note %v", c.equal, set.Diag.Reason(), set.Diag.Notes, c.flag, c.note)
		}
	}
}
