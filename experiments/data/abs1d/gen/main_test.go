package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCommittedFileIsGenerated checks that experiments/data/abs1d/abs1d.csv
// is exactly what the generator writes.
func TestCommittedFileIsGenerated(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "abs1d.csv"))
	if err != nil {
		t.Fatalf("%v (run: go run ./experiments/data/abs1d/gen)", err)
	}
	if !bytes.Equal(got, File()) {
		t.Errorf("abs1d.csv differs from the generator's output (run: go run ./experiments/data/abs1d/gen)")
	}
}

// TestFileRows checks the header, the row count and that every x lies in
// [−2, 2] and every residual y − |x| within 5 noise sd.
func TestFileRows(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(string(File())), "\n")
	if lines[0] != "x,y" || len(lines) != Rows+1 {
		t.Fatalf("header %q, %d rows; want \"x,y\", %d", lines[0], len(lines)-1, Rows)
	}
	var ss float64
	for _, l := range lines[1:] {
		xs, ys, _ := strings.Cut(l, ",")
		x, err1 := strconv.ParseFloat(xs, 64)
		y, err2 := strconv.ParseFloat(ys, 64)
		if err1 != nil || err2 != nil || x < -2 || x > 2 {
			t.Fatalf("row %q", l)
		}
		r := y - math.Abs(x)
		if r*r > 25*Noise*Noise {
			t.Errorf("row %q: residual %.3f beyond 5 sd", l, r)
		}
		ss += r * r
	}
	// The residuals' sd within 20 % of Noise (100 draws: its relative
	// standard error is about 7 %).
	if sd := sqrt(ss / Rows); sd < 0.8*Noise || sd > 1.2*Noise {
		t.Errorf("residual sd %.3f, want %.2f ± 20 %%", sd, Noise)
	}
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
