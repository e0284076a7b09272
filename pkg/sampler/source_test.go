package sampler

import (
	"math/rand/v2"
	"testing"
)

// TestSourceRoundTrip saves a PCG and a ChaCha8 stream mid-way, restores
// each into a fresh source and draws the same numbers; a stream that does
// not decode leaves the source as it was, and another source type is
// refused both ways.
func TestSourceRoundTrip(t *testing.T) {
	for _, mk := range []func() rand.Source{
		func() rand.Source { return rand.NewPCG(1, 2) },
		func() rand.Source { return rand.NewChaCha8([32]byte{3}) },
	} {
		a := mk()
		a.Uint64()
		b, err := MarshalSource(a)
		if err != nil {
			t.Fatal(err)
		}
		c := mk()
		if err := UnmarshalSource(c, b); err != nil {
			t.Fatal(err)
		}
		if x, y := a.Uint64(), c.Uint64(); x != y {
			t.Errorf("%T: restored stream draws %d, the saved one %d", a, y, x)
		}
		d := mk()
		want := mk().Uint64()
		if err := UnmarshalSource(d, []byte("garbage")); err == nil {
			t.Errorf("%T: garbage restored", d)
		}
		if got := d.Uint64(); got != want {
			t.Errorf("%T: a failed restore changed the source (%d, want %d)", d, got, want)
		}
	}
	var s rand.Source = otherSource{}
	if _, err := MarshalSource(s); err == nil {
		t.Error("another source type saved")
	}
	if err := UnmarshalSource(s, nil); err == nil {
		t.Error("another source type restored")
	}
}

type otherSource struct{}

func (otherSource) Uint64() uint64 { return 0 }
