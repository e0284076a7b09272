package harness

import (
	"context"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// TestRecorderStats checks that method statistics become metric rows named
// method:<key>, in sorted key order after the registered metrics, only at
// the snapshots the schedule evaluates, and that the final evaluation uses
// the statistics of the last snapshot although the method reuses its map.
func TestRecorderStats(t *testing.T) {
	e := &Experiment{ID: "e", Eval: Schedule{Metrics: []string{"m"}, Every: 2}}
	c := &Cell{ID: "e/x/d/s1/n5", Experiment: e, Method: &Method{Name: "x"}, Dataset: "d", Split: 1, N: 5}
	step := func(s particle.Snapshot) float64 { return float64(10 * s.Step) }
	r := newRecorder(context.Background(), c, []namedMetric{{"m", step}})
	stats := map[string]float64{}
	for k := 1; k <= 5; k++ {
		s := particle.Snapshot{Step: k, GradEvals: int64(k)}
		if k != 3 {
			// Inserted in reverse order: the CSV must sort them.
			stats["zeta"] = float64(k) + 0.5
			stats["alpha"] = -float64(k)
			s.Stats = stats
		}
		if err := r.Record(s); err != nil {
			t.Fatal(err)
		}
		// The method overwrites its map after reporting.
		stats["alpha"], stats["zeta"] = 99, 99
	}
	r.final(particle.Set{X: mat.NewDense(5, 1, nil), W: particle.Equal(5)})
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(r.csv())), "\n")[1:] {
		f := strings.Split(l, ",")
		got = append(got, f[6]+" "+f[9]+" "+f[10])
	}
	want := []string{
		"2 m 20", "2 method:alpha -2", "2 method:zeta 2.5",
		"4 m 40", "4 method:alpha -4", "4 method:zeta 4.5",
		"5 m 50", "5 method:alpha -5", "5 method:zeta 5.5",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A method without statistics adds no rows.
	r = newRecorder(context.Background(), c, []namedMetric{{"m", step}})
	for k := 1; k <= 4; k++ {
		if err := r.Record(particle.Snapshot{Step: k}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(string(r.csv()), "\n"); n != 3 {
		t.Errorf("no statistics: %d lines, want header and 2 rows", n)
	}
}
