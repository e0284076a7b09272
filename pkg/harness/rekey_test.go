package harness

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"gonum.org/v1/gonum/mat"
)

// spreadOld and spreadNew are one kind's settings before and after its key
// jitter was renamed init_scale and its key mode began to be written out.
type spreadOld struct {
	Steps  int     `toml:"steps" json:"steps,omitempty"`
	Jitter float64 `toml:"jitter" json:"jitter,omitempty"`
	Mode   string  `toml:"mode" json:"mode,omitempty"`
}

type spreadNew struct {
	Steps     int     `toml:"steps" json:"steps,omitempty"`
	InitScale float64 `toml:"init_scale" json:"init_scale,omitempty"`
	Mode      string  `toml:"mode" json:"mode,omitempty"`
}

// spreadRun returns one particle at the spread: the same set under either
// settings type when mode is "" or "fixed".
func spreadRun(spread float64, mode string) (Output, error) {
	x := mat.NewDense(1, 2, []float64{spread, 0})
	if mode == "drift" {
		x.Set(0, 1, 1)
	}
	return Output{Set: particle.Set{X: x, W: []float64{1}}}, nil
}

func spreadRegistry(t *testing.T, old bool) *Registry {
	t.Helper()
	ty := newToy()
	if old {
		RegisterMethod(ty.reg, "spread", "1", func(ctx context.Context, in Input[spreadOld]) (Output, error) {
			return spreadRun(in.Settings.Jitter, in.Settings.Mode)
		})
	} else {
		RegisterMethod(ty.reg, "spread", "1", func(ctx context.Context, in Input[spreadNew]) (Output, error) {
			return spreadRun(in.Settings.InitScale, in.Settings.Mode)
		})
	}
	return ty.reg
}

const spreadExp = `id = "rk"
seed = 3
datasets = ["gauss"]
splits = [0, 1]
[eval]
metrics = ["mean0"]
[methods.m]
kind = "spread"
particles = [1]
settings = SETTINGS
`

func spreadCells(t *testing.T, reg *Registry, settings string) []*Cell {
	t.Helper()
	e, err := Load(reg, "rk.toml", []byte(strings.Replace(spreadExp, "SETTINGS", settings, 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	return Plan([]*Experiment{e})
}

// Rekey keeps results whose settings were renamed or written out at the
// value the run took, and only those: another value, a key it was not told
// of, another seed or a CSV edited since are left stale, with the reason.
// The CSV is untouched and the cell is done under its new key.
func TestRekey(t *testing.T) {
	dir := t.TempDir()
	oldReg := spreadRegistry(t, true)
	oldCells := spreadCells(t, oldReg, `{ steps = 3, jitter = 0.5 }`)
	if _, err := NewRunner(oldReg, Options{Results: dir, Jobs: 1, Log: quiet}).Run(context.Background(), oldCells); err != nil {
		t.Fatal(err)
	}
	newReg := spreadRegistry(t, false)
	rule := RekeyRule{
		Rename: map[string]map[string]string{"spread": {"jitter": "init_scale"}},
		Add:    map[string]map[string][]any{"spread": {"mode": {"fixed"}}},
	}
	r := NewRunner(newReg, Options{Results: dir, Jobs: 1, Log: quiet})
	for _, c := range []struct{ settings, why string }{
		{`{ steps = 3, init_scale = 0.5, mode = "drift" }`, "mode = drift added"},
		{`{ steps = 3, init_scale = 0.25, mode = "fixed" }`, "init_scale 0.25, was 0.5"},
		{`{ steps = 4, init_scale = 0.5 }`, "steps 4, was 3"},
		{`{ init_scale = 0.5 }`, "steps dropped"},
	} {
		for _, cell := range spreadCells(t, newReg, c.settings) {
			out, err := r.Rekey(cell, rule, true)
			if err != nil || out.Rekeyed || !strings.Contains(out.Why, c.why) {
				t.Errorf("%s: %+v, %v; want it left, saying %q", c.settings, out, err, c.why)
			}
		}
	}
	seed := strings.Replace(spreadExp, "seed = 3", "seed = 4", 1)
	e, err := Load(newReg, "rk.toml", []byte(strings.Replace(seed, "SETTINGS", `{ steps = 3, init_scale = 0.5, mode = "fixed" }`, 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := r.Rekey(Plan([]*Experiment{e})[0], rule, true); err != nil || out.Rekeyed || !strings.Contains(out.Why, "beyond the settings: seed") {
		t.Errorf("another seed: %+v, %v", out, err)
	}

	cells := spreadCells(t, newReg, `{ steps = 3, init_scale = 0.5, mode = "fixed" }`)
	csv0, prov0 := r.Paths(cells[0])
	csv1, _ := r.Paths(cells[1])
	before, _ := os.ReadFile(csv0)
	provBefore, _ := os.ReadFile(prov0)
	// A dry run writes nothing.
	if out, err := r.Rekey(cells[0], rule, false); err != nil || !out.Rekeyed {
		t.Fatalf("dry run: %+v, %v", out, err)
	}
	if b, _ := os.ReadFile(prov0); !bytes.Equal(b, provBefore) {
		t.Error("the dry run rewrote the provenance")
	}
	// Cell 1's CSV was edited: left.
	b1, _ := os.ReadFile(csv1)
	if err := os.WriteFile(csv1, append(b1, "9,9,9\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := r.Rekey(cells[1], rule, true); err != nil || out.Rekeyed || !strings.Contains(out.Why, "CSV") {
		t.Errorf("edited CSV: %+v, %v", out, err)
	}
	out, err := r.Rekey(cells[0], rule, true)
	if err != nil || !out.Rekeyed {
		t.Fatalf("rekey: %+v, %v", out, err)
	}
	st, err := r.Status(cells[0])
	if err != nil || st.Status != Done {
		t.Fatalf("after rekey: %s (%s), %v", st.Status, st.StaleReason(), err)
	}
	if after, _ := os.ReadFile(csv0); !bytes.Equal(after, before) {
		t.Error("rekey changed the CSV")
	}
	if st.Prov.Key != st.Key || !strings.Contains(mustRead(t, prov0), `"init_scale": 0.5`) || strings.Contains(mustRead(t, prov0), "jitter") {
		t.Errorf("provenance after rekey:\n%s", mustRead(t, prov0))
	}
	// Done cells are left alone without a reason.
	if out, err := r.Rekey(cells[0], rule, true); err != nil || out.Rekeyed || out.Why != "" {
		t.Errorf("done cell: %+v, %v", out, err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
