package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"runtime"
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

// TestRecorderStreams checks that a recorder keeps nothing per snapshot:
// evaluating 200,000 snapshots (every = 1) streamed out leaves the heap as
// it was (the rows were once all kept until the cell ended, ~100 MB/s for
// SVGD), and the streamed CSV is the bytes the in-memory one has, with
// their sha256.
func TestRecorderStreams(t *testing.T) {
	e := &Experiment{ID: "e", Eval: Schedule{Metrics: []string{"m", "k"}, Every: 1}}
	c := &Cell{ID: "e/x/d/s1/n5", Experiment: e, Method: &Method{Name: "x"}, Dataset: "d", Split: 1, N: 5}
	metrics := []namedMetric{{"m", func(s particle.Snapshot) float64 { return 0.1 * float64(s.Step) }}, {"k", func(particle.Snapshot) float64 { return 1 }}}
	feed := func(r *recorder, n int) {
		stats := map[string]float64{"acc": 0.5}
		for k := 1; k <= n; k++ {
			if err := r.Record(particle.Snapshot{Step: k, Seconds: 0.001 * float64(k), GradEvals: int64(2 * k), Stats: stats}); err != nil {
				t.Fatal(err)
			}
		}
	}
	mem := newRecorder(context.Background(), c, metrics)
	feed(mem, 1000)
	var out bytes.Buffer
	st := newRecorder(context.Background(), c, metrics)
	st.stream(&out)
	feed(st, 1000)
	sum, err := st.finish()
	if err != nil {
		t.Fatal(err)
	}
	if want := mem.csv(); !bytes.Equal(out.Bytes(), want) || sum != sha256.Sum256(want) || st.rows != 1000 || st.lastKey != 100 {
		t.Fatalf("streamed %d bytes (sha256 %x), %d rows, last key value %v; in memory %d bytes (sha256 %x)", out.Len(), sum, st.rows, st.lastKey, len(want), sha256.Sum256(want))
	}

	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	r := newRecorder(context.Background(), c, metrics)
	r.stream(io.Discard)
	feed(r, 10)
	before := heap()
	feed(r, 200000)
	after := heap()
	runtime.KeepAlive(r)
	if after > before+1<<20 {
		t.Errorf("heap grew by %d bytes over 200,000 snapshots, want < 1 MiB", after-before)
	}
}

// TestTemporaryCSVRemoved: the temporary CSV a killed runner left beside a
// cell's CSV is removed when the cell is next claimed, and a run leaves
// none of its own.
func TestTemporaryCSVRemoved(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	runExp(t, ty, dir, 1, base, "quick", false)
	e, err := Load(ty.reg, "exp.toml", []byte(base), "quick")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 1, Log: quiet})
	csvPath, _ := r.Paths(Plan([]*Experiment{e})[0])
	stale := filepath.Join(filepath.Dir(csvPath), "."+filepath.Base(csvPath)+".tmp-123")
	if err := os.WriteFile(stale, []byte("half a CSV"), 0o644); err != nil {
		t.Fatal(err)
	}
	runExp(t, ty, dir, 1, base, "quick", true)
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
}
