package particle

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

func TestSetMeanAndClone(t *testing.T) {
	s := Set{X: mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}), W: []float64{0.5, 0.25, 0.25}}
	got := s.Mean(nil)
	want := []float64{0.5*1 + 0.25*3 + 0.25*5, 0.5*2 + 0.25*4 + 0.25*6}
	for j := range want {
		if math.Abs(got[j]-want[j]) > 1e-15 {
			t.Fatalf("mean[%d] = %v, want %v", j, got[j], want[j])
		}
	}
	c := s.Clone()
	c.X.Set(0, 0, 100)
	c.W[0] = 0
	if s.X.At(0, 0) != 1 || s.W[0] != 0.5 {
		t.Fatal("Clone shares memory with the original")
	}
	if s.Len() != 3 || (Set{}).Len() != 0 {
		t.Fatal("Len wrong")
	}
}

func TestEqualWeightsSumToOne(t *testing.T) {
	w := Equal(7)
	var s float64
	for _, v := range w {
		s += v
	}
	if math.Abs(s-1) > 1e-15 || w[3] != 1.0/7 {
		t.Fatalf("Equal(7) = %v", w)
	}
}

func TestReportExcludesRecordTimeAndHandlesStop(t *testing.T) {
	var sw Stopwatch
	sw.Start()
	time.Sleep(2 * time.Millisecond)
	var seen float64
	slow := RecorderFunc(func(s Snapshot) error {
		seen = s.Seconds
		time.Sleep(50 * time.Millisecond)
		return nil
	})
	stop, err := Report(slow, &sw, Snapshot{Step: 1})
	if stop || err != nil {
		t.Fatalf("Report = %v, %v", stop, err)
	}
	if seen <= 0 {
		t.Fatalf("snapshot seconds %v, want > 0", seen)
	}
	// The 50 ms spent recording must not be on the clock: the clock may
	// only have advanced by the time outside Record.
	sw.Stop()
	if after := sw.Seconds(); after >= seen+0.050 {
		t.Fatalf("recording time leaked into the clock: before %v, after %v", seen, after)
	}
	sw.Start()
	stop, err = Report(RecorderFunc(func(Snapshot) error { return ErrStop }), &sw, Snapshot{})
	if !stop || err != nil {
		t.Fatalf("ErrStop: Report = %v, %v", stop, err)
	}
	boom := errors.New("boom")
	if _, err := Report(RecorderFunc(func(Snapshot) error { return boom }), &sw, Snapshot{}); !errors.Is(err, boom) {
		t.Fatalf("error not passed through: %v", err)
	}
	if stop, err := Report(nil, &sw, Snapshot{}); stop || err != nil {
		t.Fatal("nil recorder must record nothing")
	}
}

func TestCheckFiniteNamesStepAndCoordinate(t *testing.T) {
	if err := CheckFinite("m", 3, []float64{1, 2}); err != nil {
		t.Fatal(err)
	}
	err := CheckFinite("svgd", 17, []float64{0, math.NaN()})
	if err == nil || !strings.Contains(err.Error(), "step 17") || !strings.Contains(err.Error(), "coordinate 1") {
		t.Fatalf("error %v does not name step and coordinate", err)
	}
	if CheckFinite("m", 1, []float64{math.Inf(-1)}) == nil {
		t.Fatal("-Inf accepted")
	}
}
