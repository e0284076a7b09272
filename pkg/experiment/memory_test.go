package experiment

import (
	"path/filepath"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// No cell of the committed experiments, quick or full, is estimated above
// 1 GiB: the memory check refuses none of them on a small machine. Every
// built-in kind the files use has an estimate.
func TestMemoryEstimatesOfCommittedFiles(t *testing.T) {
	files, err := filepath.Glob("../../experiments/*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no experiment files: %v", err)
	}
	const limit = 1 << 30
	kinds := map[string]bool{}
	var largest float64
	var at string
	for _, f := range files {
		for _, p := range []string{"quick", "full"} {
			e, err := harness.LoadFile(testRegistry, f, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range harness.Cells(e) {
				m, ref, ok := harness.CellMemory(c)
				switch c.Method.Kind {
				case KindOLS, KindConstant:
				default:
					if !ok {
						t.Errorf("%s %s: kind %s has no estimate", p, c.ID, c.Method.Kind)
					}
				}
				kinds[c.Method.Kind] = true
				if b := max(m.Bytes, ref.Bytes); b > largest {
					largest, at = b, p+" "+c.ID
				}
				if m.Bytes > limit || ref.Bytes > limit {
					t.Errorf("%s %s: estimated %s (%s), reference %s", p, c.ID, harness.FormatBytes(m.Bytes), m.What, harness.FormatBytes(ref.Bytes))
				}
			}
		}
	}
	t.Logf("largest estimate: %s (%s)", harness.FormatBytes(largest), at)
	if len(kinds) < 5 {
		t.Errorf("the files use kinds %v", kinds)
	}
}

// The estimates of the sizes that cannot fit: SVGD at N = 10⁶ (its N×N
// kernel, 8·10¹² bytes), HMC at 2·10⁹ draws (16 bytes a draw of one
// dimension and 8 of weight: 4.8·10¹⁰) and MMD-FW at 10⁸ (its Gram,
// 8·10¹⁶), each keyed at the particle count; SVGD with 10⁸ iterations each
// evaluated, keyed at its iterations.
func TestMemoryEstimates(t *testing.T) {
	src := `id = "big"
datasets = ["gauss2d"]
splits = [0]
[eval]
metrics = ["mmd2_exact"]
[methods.svgd]
kind = "svgd"
particles = [1000000, 10]
[methods.hmc]
kind = "hmc"
particles = [2000000000]
[methods.mmdfw]
kind = "mmdfw"
particles = [100000000]
[methods.long]
kind = "svgd"
particles = [10]
settings = { iterations = 100000000 }
`
	e, err := harness.Load(testRegistry, "big.toml", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		bytes float64
		key   string
	}{
		"big/svgd/gauss2d/s0/n1000000":    {8e12 + 32e6, "particles"},
		"big/svgd/gauss2d/s0/n10":         {800 + 320, "particles"},
		"big/hmc/gauss2d/s0/n2000000000":  {24 * 2e9, "particles"},
		"big/mmdfw/gauss2d/s0/n100000000": {8e16 + 16e8 + 1e8*(64+128), "particles"},
		"big/long/gauss2d/s0/n10":         {800 + 320 + 1e8*(64+128), "settings.iterations"},
	}
	for _, c := range harness.Cells(e) {
		m, _, ok := harness.CellMemory(c)
		w := want[c.ID]
		if !ok || m.Key != w.key || m.Bytes != w.bytes {
			t.Errorf("%s: %g bytes at %q, want %g at %q", c.ID, m.Bytes, m.Key, w.bytes, w.key)
		}
	}
}
