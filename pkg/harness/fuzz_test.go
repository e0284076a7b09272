package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// fuzzMemoryLimit is the soft memory limit of the fuzz targets: an input
// that makes a reader allocate without bound then drives the garbage
// collector rather than the machine into the ground, and fails its
// allocation bound.
const fuzzMemoryLimit = 512 << 20

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// FuzzLoadConfig loads any text as an experiment file of the toy
// registry: an error or an experiment, never a panic, and memory bounded
// by a multiple of the file.
func FuzzLoadConfig(f *testing.F) {
	debug.SetMemoryLimit(fuzzMemoryLimit)
	f.Add([]byte(base))
	f.Add([]byte(strings.Replace(base, "[methods.walk-b]", "[methods.walk-b]\nparticles = [1, [2]]", 1)))
	f.Add([]byte("x = " + strings.Repeat("[", 40) + strings.Repeat("]", 40)))
	f.Add([]byte(strings.Repeat("a.", 40) + "a = 1"))
	f.Add([]byte("x = {a = 1, b.c = {}, d = [1, {e = 2}]}\n[[t]]\ny = '''\n[[[\n'''"))
	files, _ := filepath.Glob("../../experiments/*.toml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	reg := newToy().reg
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 {
			return
		}
		got := allocated(func() {
			for _, p := range []string{"", "quick"} {
				_, _ = Load(reg, "f.toml", src, p)
			}
		})
		if limit := uint64(1024*len(src)) + 16<<20; got > limit {
			t.Errorf("allocated %d bytes for a %d-byte file, more than %d", got, len(src), limit)
		}
	})
}

// FuzzReadProvenance reads any bytes as a cell's provenance file: an
// error or a provenance, never a panic, memory bounded by a multiple of
// the file.
func FuzzReadProvenance(f *testing.F) {
	debug.SetMemoryLimit(fuzzMemoryLimit)
	b, err := json.Marshal(Provenance{Experiment: "toy", Cell: "m/gauss/s0/n3", Key: "k"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(`{"settings": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`))
	f.Add([]byte(`{"diagnostics": {"values": {"rhat": "NaN", "ess": "+Inf"}}}`))
	if files, _ := filepath.Glob("../../results/full/*/*/*/s0/*.json"); len(files) > 0 {
		if b, err := os.ReadFile(files[0]); err == nil {
			f.Add(b)
		}
	}
	path := filepath.Join(f.TempDir(), "p.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got := allocated(func() { _, _ = ReadProvenance(path) })
		if limit := uint64(64*len(b)) + 1<<20; got > limit {
			t.Errorf("allocated %d bytes for a %d-byte file, more than %d", got, len(b), limit)
		}
	})
}
