package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A cell whose estimate exceeds the memory is refused by Run before any
// cell runs, the error at the file, line and key of the particle count,
// with the value, the estimate and the memory; a profile's or an
// override's value is named where it is set.
func TestRunRefusesMemory(t *testing.T) {
	ty := newToy()
	SetMemoryEstimate(ty.reg, "walk", func(f Footprint[walkSettings]) Memory {
		return Memory{Bytes: float64(f.N) * (1 << 30), Key: "particles", What: "1 GiB a particle"}
	})
	for _, tc := range []struct {
		profile string
		sets    []string
		want    string
	}{
		{"", nil, "toy.toml:16: key methods.walk-a.particles: 4 needs about 4 GiB in one cell (1 GiB a particle), more than the 3 GiB that --memory sets"},
		{"quick", []string{"methods.walk-a.particles=[5]"}, "toy.toml: key methods.walk-a.particles: --set methods.walk-a.particles=[5]: 5 needs about 5 GiB"},
	} {
		e, err := LoadSet(ty.reg, "toy.toml", []byte(base), tc.profile, tc.sets)
		if err != nil {
			t.Fatal(err)
		}
		r := NewRunner(ty.reg, Options{Results: t.TempDir(), Log: quiet, Memory: 3 << 30})
		sum, err := r.Run(context.Background(), Plan([]*Experiment{e}))
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tc.want) || sum != nil {
			t.Errorf("%s %v: %v, %v\nwant %s…", tc.profile, tc.sets, sum, err, tc.want)
		}
		if n := ty.runs.Load(); n != 0 {
			t.Fatalf("%d cells ran", n)
		}
	}
	// Under the quick profile (2 particles) every cell fits; without a
	// check the base's fit too.
	for _, tc := range []struct {
		profile string
		memory  uint64
	}{{"quick", 3 << 30}, {"", NoMemoryCheck}} {
		e, _ := Load(ty.reg, "toy.toml", []byte(base), tc.profile)
		sum, err := NewRunner(ty.reg, Options{Results: t.TempDir(), Log: quiet, Memory: tc.memory}).Run(context.Background(), Plan([]*Experiment{e}))
		if err != nil || sum.Err() != nil {
			t.Errorf("%q: %v %v", tc.profile, sum, err)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]uint64{"123": 123, "64GiB": 64 << 30, "500G": 500e9, "1.5 MiB": 3 << 19, "2kb": 2000, "off": 0, "0": 0} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "x", "-1G", "12 parsecs"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}
