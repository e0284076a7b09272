package sampler_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/runs.golden")

// TestRunGolden holds every method's Run to the snapshots and the result
// it gave on seeded runs when the golden file was written: the steps,
// gradient evaluations, particles, weights and statistics of every
// snapshot (not their seconds), and the set, its diagnostics, the cost's
// gradient evaluations and the method's detail. A change of a method's
// loop that moves any of them by one bit fails here; a change that means
// to move them rewrites the file with -update and says why.
func TestRunGolden(t *testing.T) {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 2}))
	if err != nil {
		t.Fatal(err)
	}
	start := particle.Start{X0: []float64{0.5, 0.5}}
	type run func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error)
	cases := []struct {
		name string
		run  run
	}{
		{"mmdfw", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return mmdfw.Run(ctx, g, start, mmdfw.Settings{N: 25, LMO: mmdfw.LMO{LMOSteps: 20}}, src, rec)
		}},
		{"mmdfw-embed", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			s := mmdfw.Settings{N: 20, KernelSpec: mmdfw.KernelSpec{Bandwidth: 1}, Frame: sampler.Frame{Stop: mmdfw.StopFixed}}
			s.Inputs = mmdfw.Inputs{Embed: mmdfw.GaussianEmbedding(g)}
			return mmdfw.Run(ctx, g, start, s, src, rec)
		}},
		{"mmdfw-laplace", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return mmdfw.Run(ctx, g, start, mmdfw.Settings{N: 15, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace, First: mmdfw.FirstMAP}, Frame: sampler.Frame{Stop: mmdfw.StopFixed}}, src, rec)
		}},
		{"svgd", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return svgd.Run(ctx, g, start, svgd.Settings{N: 20, Iterations: 150, RecordEvery: 7}, src, rec)
		}},
		{"svgd-fixed", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return svgd.Run(ctx, g, start, svgd.Settings{N: 15, Iterations: 40, Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}}, src, rec)
		}},
		{"sp", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sp.Run(ctx, g, start, sp.Settings{N: 12, Candidates: 10, NelderMeadEvals: 40}, src, rec)
		}},
		{"sp-fixed", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sp.Run(ctx, g, start, sp.Settings{N: 8, Candidates: 10, NelderMeadEvals: 30, Frame: sampler.Frame{Whiten: sp.WhitenNone, Stop: sp.StopFixed}}, src, rec)
		}},
		{"sgld", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sgld.Run(ctx, g, start, sgld.Settings{Iterations: 3000, Chains: 3, RecordEvery: 50}, src, rec)
		}},
		{"sgld-fixed", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sgld.Run(ctx, g, start, sgld.Settings{Iterations: 500, Chains: 2, Frame: sampler.Frame{Stop: sgld.StopFixed, Whiten: sgld.WhitenNone, Workers: 2}}, src, rec)
		}},
		{"hmc", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return hmc.Run(ctx, g, start, hmc.Settings{Chains: 2, Warmup: 100, DrawsPerChain: 60, RecordEvery: 10}, src, rec)
		}},
	}
	var got []string
	for _, c := range cases {
		// Every run to its end, then stopped by its recorder at its
		// first, third and last snapshot.
		h := sha256.New()
		steps := 0
		rec := particle.RecorderFunc(func(s particle.Snapshot) error { hashSnapshot(h, s); steps++; return nil })
		res, err := c.run(context.Background(), rand.NewPCG(7, 11), rec)
		hashResult(h, res, err)
		got = append(got, fmt.Sprintf("%s full %x", c.name, h.Sum(nil)))
		for _, at := range []int{1, 3, steps} {
			h := sha256.New()
			k := 0
			rec := particle.RecorderFunc(func(s particle.Snapshot) error {
				hashSnapshot(h, s)
				if k++; k == at {
					return particle.ErrStop
				}
				return nil
			})
			res, err := c.run(context.Background(), rand.NewPCG(7, 11), rec)
			hashResult(h, res, err)
			got = append(got, fmt.Sprintf("%s stop%d %x", c.name, at, h.Sum(nil)))
		}
		h = sha256.New()
		res, err = c.run(context.Background(), rand.NewPCG(7, 11), nil)
		hashResult(h, res, err)
		got = append(got, fmt.Sprintf("%s norec %x", c.name, h.Sum(nil)))
	}
	path := filepath.Join("testdata", "runs.golden")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		want = append(want, sc.Text())
	}
	if len(want) != len(got) {
		t.Fatalf("%d runs, golden file has %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("run moved:\n got %s\nwant %s", got[i], want[i])
		}
	}
}

func hashFloats(h hash.Hash, v ...float64) {
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
}

func hashMatrix(h hash.Hash, x *mat.Dense) {
	if x == nil {
		fmt.Fprint(h, "nil;")
		return
	}
	r, c := x.Dims()
	fmt.Fprintf(h, "%dx%d;", r, c)
	for i := 0; i < r; i++ {
		hashFloats(h, x.RawRowView(i)...)
	}
}

func hashSnapshot(h hash.Hash, s particle.Snapshot) {
	fmt.Fprintf(h, "step %d evals %d;", s.Step, s.GradEvals)
	hashMatrix(h, s.X)
	hashFloats(h, s.W...)
	keys := make([]string, 0, len(s.Stats))
	for k := range s.Stats {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=", k)
		hashFloats(h, s.Stats[k])
	}
}

func hashResult(h hash.Hash, res sampler.Result, err error) {
	var fe *particle.FlaggedError
	if err != nil && !errors.As(err, &fe) {
		fmt.Fprintf(h, "error %v;", err)
	}
	hashMatrix(h, res.Set.X)
	hashFloats(h, res.Set.W...)
	d := res.Set.Diag
	keys := make([]string, 0, len(d.Values))
	for k := range d.Values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=", k)
		hashFloats(h, d.Values[k])
	}
	fmt.Fprintf(h, "flags %v unchecked %v notes %v;", d.Flags, d.Unchecked, d.Notes)
	fmt.Fprintf(h, "evals %d;", res.Cost.GradEvals)
	switch r := res.Detail.(type) {
	case *mmdfw.Result:
		fmt.Fprintf(h, "mmdfw %d %d %d %d %d;", r.MAPGradEvals, r.LaplaceGradEvals, r.PoolGradEvals, r.SVGDGradEvals, r.TrainGradEvals)
		hashFloats(h, r.Bandwidth)
		hashFloats(h, r.MMD2...)
		hashFloats(h, r.Scales...)
	case *hmc.Result:
		fmt.Fprintf(h, "hmc %v %d;", r.Reasons, r.GradEvals)
		hashFloats(h, r.MaxRhat, r.MinESS)
		for _, c := range r.Chains {
			hashMatrix(h, c)
		}
	case sp.Cost:
		fmt.Fprintf(h, "sp %v %v %v;", r.Candidates, r.Refine, r.Rejected)
		hashFloats(h, r.Objective...)
	case nil:
	default:
		fmt.Fprintf(h, "detail %T;", r)
	}
}
