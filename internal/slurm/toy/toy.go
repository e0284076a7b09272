package toy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// LogEnv names the environment variable of the artefact log.
const LogEnv = "REPRO_TOY_LOG"

// Settings are the settings of the toywalk and toyref kinds.
type Settings struct {
	// Steps is the number of steps (20 when zero).
	Steps int `toml:"steps"`
	// Eta is the gradient step (0.1 when zero), Sigma the noise scale
	// (0.3 when zero).
	Eta   float64 `toml:"eta"`
	Sigma float64 `toml:"sigma"`
	// DelayMS sleeps this long at each step, to give a cell a duration.
	DelayMS int `toml:"delay_ms"`
}

// Validate implements harness.Validator.
func (s Settings) Validate() error {
	if s.Steps < 0 {
		return &harness.FieldError{Key: "steps", Err: fmt.Errorf("%d is negative", s.Steps)}
	}
	if s.DelayMS < 0 || s.DelayMS > 10000 {
		return &harness.FieldError{Key: "delay_ms", Err: fmt.Errorf("%d is out of range [0, 10000]", s.DelayMS)}
	}
	return nil
}

// logLine appends a line to the artefact log, if there is one.
func logLine(what string, split int) error {
	path := os.Getenv(LogEnv)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s s%d job %s\n", what, split, os.Getenv("SLURM_JOB_ID"))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func walk(ctx context.Context, in harness.Input[Settings]) (harness.Output, error) {
	s := in.Settings
	if s.Steps == 0 {
		s.Steps = 20
	}
	if s.Eta == 0 {
		s.Eta = 0.1
	}
	if s.Sigma == 0 {
		s.Sigma = 0.3
	}
	n := in.N
	if n == 0 {
		n = 5
	}
	rng := rand.New(in.Src)
	t := in.Problem.Target
	d := t.Dim()
	x := mat.NewDense(n, d, nil)
	w := particle.Equal(n)
	g := make([]float64, d)
	var sw particle.Stopwatch
	sw.Start()
	for step := 1; step <= s.Steps; step++ {
		for i := range n {
			r := x.RawRowView(i)
			t.LogProbGrad(r, g)
			for j := range r {
				r[j] += s.Eta*g[j] + s.Sigma*rng.NormFloat64()
			}
		}
		if s.DelayMS > 0 {
			time.Sleep(time.Duration(s.DelayMS) * time.Millisecond)
		}
		stop, err := particle.Report(in.Recorder, &sw, particle.Snapshot{Step: step, X: x, W: w, GradEvals: int64(step * n)})
		if err != nil {
			return harness.Output{}, err
		}
		if stop {
			break
		}
	}
	return harness.Output{Set: particle.Set{X: x, W: w}}, nil
}

// Register adds the kinds toywalk and toyref, the dataset toygauss and the
// metric toymean to r.
func Register(r *harness.Registry) {
	harness.RegisterMethod(r, "toywalk", "1", walk)
	harness.RegisterMethod(r, "toyref", "1", func(ctx context.Context, in harness.Input[Settings]) (harness.Output, error) {
		if err := logLine("reference", in.Cell.Split); err != nil {
			return harness.Output{}, err
		}
		return walk(ctx, in)
	})
	r.RegisterDataset("toygauss", harness.Dataset{
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			// The mean stands for a MAP point: computed once, shared.
			b, err := env.Artefact(ctx, "map/toygauss/s"+strconv.Itoa(split), func(context.Context) ([]byte, error) {
				if err := logLine("map", split); err != nil {
					return nil, err
				}
				return []byte(strconv.Itoa(split)), nil
			})
			if err != nil {
				return nil, err
			}
			mu, err := strconv.ParseFloat(string(b), 64)
			if err != nil {
				return nil, err
			}
			return &harness.Problem{Target: target.Func{D: 2, F: func(x, g []float64) float64 {
				var lp float64
				for j := range x {
					g[j] = mu - x[j]
					lp -= (x[j] - mu) * (x[j] - mu) / 2
				}
				return lp
			}}}, nil
		},
		Checksums: func(int, *harness.Env) (map[string]string, error) {
			return map[string]string{"toygauss": "synthetic"}, nil
		},
	})
	r.RegisterMetric("toymean", func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
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
}
