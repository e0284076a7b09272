package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// walkSettings are the settings of the toy method: a Gaussian random walk
// of N particles pulled towards the origin.
type walkSettings struct {
	// Steps is the number of steps (20 when zero).
	Steps int `toml:"steps"`
	// Scale is the noise scale (1 when zero).
	Scale float64 `toml:"scale"`
	// DelayMS sleeps this long at each step, to give a run some duration.
	DelayMS int `toml:"delay_ms"`
	// Fail makes the method fail at step 3; Panic makes it panic there.
	Fail  bool `toml:"fail"`
	Panic bool `toml:"panic"`
	// Inner exercises nested settings tables.
	Inner struct {
		Pull float64 `toml:"pull"`
	} `toml:"inner"`
}

func (s walkSettings) Validate() error {
	if s.Scale < 0 {
		return &FieldError{Key: "scale", Err: fmt.Errorf("%v is out of range (≥ 0)", s.Scale)}
	}
	if s.Inner.Pull < 0 || s.Inner.Pull >= 1 {
		return &FieldError{Key: "inner.pull", Err: fmt.Errorf("%v is out of range [0, 1)", s.Inner.Pull)}
	}
	return nil
}

// toy holds a registry of toy methods, datasets and metrics, with counters
// of what ran.
type toy struct {
	reg       *Registry
	runs      atomic.Int64 // method runs
	artefacts atomic.Int64 // artefact computations
	mu        sync.Mutex
	checksum  string // of the "gauss" data
	present   bool   // whether the "maybe" data exists
	broken    bool   // whether the "broken" data fails its checksums
}

func walk(ctx context.Context, t target.Target, s walkSettings, n int, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	if s.Steps == 0 {
		s.Steps = 20
	}
	if s.Scale == 0 {
		s.Scale = 1
	}
	if n == 0 {
		n = 5
	}
	rng := rand.New(src)
	d := t.Dim()
	x := mat.NewDense(n, d, nil)
	w := particle.Equal(n)
	grad := make([]float64, d)
	var sw particle.Stopwatch
	sw.Start()
	for step := 1; step <= s.Steps; step++ {
		if err := ctx.Err(); err != nil {
			return particle.Set{}, err
		}
		if step == 3 && s.Fail {
			return particle.Set{}, errors.New("walk: asked to fail")
		}
		if step == 3 && s.Panic {
			panic("walk: asked to panic")
		}
		for i := 0; i < n; i++ {
			row := x.RawRowView(i)
			t.LogProbGrad(row, grad)
			for j := range row {
				row[j] += 0.1*grad[j] - s.Inner.Pull*row[j] + s.Scale*0.3*rng.NormFloat64()
			}
		}
		if s.DelayMS > 0 {
			time.Sleep(time.Duration(s.DelayMS) * time.Millisecond)
		}
		stop, err := particle.Report(rec, &sw, particle.Snapshot{Step: step, X: x, W: w, GradEvals: int64(step * n)})
		if err != nil {
			return particle.Set{}, err
		}
		if stop {
			break
		}
	}
	return particle.Set{X: x, W: w}, nil
}

// clockSettings configure a method that reports synthetic compute times,
// step·0.25 s, so that time budgets are tested without timing.
type clockSettings struct {
	Steps int `toml:"steps"`
}

func newToy() *toy {
	ty := &toy{reg: NewRegistry(), checksum: "c0ffee"}
	RegisterMethod(ty.reg, "walk", "1", func(ctx context.Context, in Input[walkSettings]) (Output, error) {
		ty.runs.Add(1)
		set, err := walk(ctx, in.Problem.Target, in.Settings, in.N, in.Src, in.Recorder)
		return Output{Set: set, Summary: map[string]any{"threads": in.Threads}}, err
	})
	RegisterMethod(ty.reg, "clock", "1", func(ctx context.Context, in Input[clockSettings]) (Output, error) {
		ty.runs.Add(1)
		x := mat.NewDense(1, 1, []float64{1})
		for k := 1; k <= in.Settings.Steps; k++ {
			err := in.Recorder.Record(particle.Snapshot{Step: k, X: x, W: []float64{1}, Seconds: 0.25 * float64(k)})
			if errors.Is(err, particle.ErrStop) {
				break
			}
			if err != nil {
				return Output{}, err
			}
		}
		return Output{Set: particle.Set{X: x, W: []float64{1}}}, nil
	})
	gauss := func(ctx context.Context, split int, env *Env) (*Problem, error) {
		mu := float64(split)
		return &Problem{Target: target.Func{D: 2, F: func(x, g []float64) float64 {
			var lp float64
			for j := range x {
				g[j] = -(x[j] - mu)
				lp -= (x[j] - mu) * (x[j] - mu) / 2
			}
			return lp
		}}}, nil
	}
	ty.reg.RegisterDataset("gauss", Dataset{Load: gauss, Checksums: func(split int, env *Env) (map[string]string, error) {
		ty.mu.Lock()
		defer ty.mu.Unlock()
		return map[string]string{"gauss.csv": ty.checksum}, nil
	}})
	ty.reg.RegisterDataset("maybe", Dataset{Load: gauss, Checksums: func(split int, env *Env) (map[string]string, error) {
		ty.mu.Lock()
		defer ty.mu.Unlock()
		if !ty.present {
			return nil, fmt.Errorf("maybe.csv: %w", ErrDataMissing)
		}
		return map[string]string{"maybe.csv": "beef"}, nil
	}})
	// The "broken" dataset's files cannot be read while ty.broken is set.
	ty.reg.RegisterDataset("broken", Dataset{Load: gauss, Checksums: func(split int, env *Env) (map[string]string, error) {
		ty.mu.Lock()
		defer ty.mu.Unlock()
		if ty.broken {
			return nil, errors.New("broken.csv: wrong size (3 bytes, want 30)")
		}
		return map[string]string{"broken.csv": "cafe"}, nil
	}})
	// The "shared" dataset loads through an artefact, as a MAP point would.
	ty.reg.RegisterDataset("shared", Dataset{Load: func(ctx context.Context, split int, env *Env) (*Problem, error) {
		b, err := env.Artefact(ctx, "map/shared", func(ctx context.Context) ([]byte, error) {
			ty.artefacts.Add(1)
			time.Sleep(50 * time.Millisecond)
			return []byte("42"), nil
		})
		if err != nil {
			return nil, err
		}
		if string(b) != "42" {
			return nil, fmt.Errorf("artefact: got %q", b)
		}
		return gauss(ctx, split, env)
	}})
	ty.reg.RegisterMetric("mean0", func(ctx context.Context, p *Problem, env *Env) (Metric, error) {
		return func(s particle.Snapshot) float64 {
			var m float64
			for i, w := range s.W {
				m += w * s.X.At(i, 0)
			}
			return m
		}, nil
	})
	ty.reg.RegisterMetric("sq", func(ctx context.Context, p *Problem, env *Env) (Metric, error) {
		return func(s particle.Snapshot) float64 {
			var m float64
			for i, w := range s.W {
				r := s.X.RawRowView(i)
				m += w * (r[0]*r[0] + r[1]*r[1])
			}
			return m
		}, nil
	})
	// refmean is the distance between the weighted means of the particles
	// and of the reference sample.
	ty.reg.RegisterMetric("refmean", func(ctx context.Context, p *Problem, env *Env) (Metric, error) {
		ref, _, err := env.Reference(ctx)
		if err != nil {
			return nil, err
		}
		rm := ref.Mean(nil)
		return func(s particle.Snapshot) float64 {
			m := particle.Set{X: s.X, W: s.W}.Mean(nil)
			return math.Hypot(m[0]-rm[0], m[1]-rm[1])
		}, nil
	})
	return ty
}
