package sampler_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// ckRecorder is a sampler.Checkpoints that hashes every snapshot it
// records, keeps the last checkpoint with the count of snapshots recorded
// when it was saved, and ends the run at its snapshot at: by cancelling
// ctx after recording it (mode "after"), by cancelling ctx and refusing
// it (mode "refuse"), or, with a checkpoint wanted at that snapshot, by
// failing two snapshots later as a killed process would (mode "kill"), or
// with a checkpoint wanted at the at-th step that the loop asks about
// (between snapshots, in SGLD's burn-in), by failing at the next
// snapshot (mode "early").
type ckRecorder struct {
	cancel context.CancelFunc
	at     int
	mode   string
	saved  []byte // to resume from

	snaps    []string
	ck       []byte
	ckSnaps  int
	restored int
	rerr     error
	due      bool
	dueCalls int
}

var errKilled = errors.New("killed")

func (r *ckRecorder) Record(s particle.Snapshot) error {
	k := len(r.snaps) + 1
	if r.at > 0 && k == r.at && r.mode == "refuse" {
		r.cancel()
		return context.Canceled
	}
	if r.at > 0 && k == r.at+2 && r.mode == "kill" || r.mode == "early" && r.ck != nil {
		return errKilled
	}
	h := sha256.New()
	hashSnapshot(h, s)
	r.snaps = append(r.snaps, fmt.Sprintf("%x", h.Sum(nil)))
	if r.at > 0 && k == r.at {
		switch r.mode {
		case "after":
			r.cancel()
		case "kill":
			r.due = true
		}
	}
	return nil
}

func (r *ckRecorder) Saved() []byte { return r.saved }
func (r *ckRecorder) Restored(step int, err error) {
	r.restored, r.rerr = step, err
}
func (r *ckRecorder) Due() bool {
	r.dueCalls++
	if r.mode == "early" && r.dueCalls == r.at {
		return true
	}
	d := r.due
	r.due = false
	return d
}
func (r *ckRecorder) Save(step int, b []byte) {
	r.ck = append([]byte(nil), b...)
	r.ckSnaps = len(r.snaps)
}

type chargedRec struct{ rec particle.Recorder }

func (c chargedRec) Record(s particle.Snapshot) error { s.GradEvals += 5; return c.rec.Record(s) }
func (c chargedRec) Unwrap() particle.Recorder        { return c.rec }

// TestResumeBitIdentical interrupts seeded runs of every method with a
// state encoder at several snapshots, in the three ways a run ends early
// (a cancellation after a snapshot, one that refuses the snapshot, a
// process killed after a checkpoint), resumes each from its checkpoint
// with a fresh source, and holds the snapshots of the interrupted run up
// to its checkpoint followed by those of the resumed run, and the resumed
// run's result, to the uninterrupted run's bit for bit.
func TestResumeBitIdentical(t *testing.T) {
	g, post := testutil.GaussianAndPosterior(t)
	start := particle.Start{X0: []float64{0.5, 0.5}}
	type run func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error)
	type tcase struct {
		name string
		run  run
	}
	cases := []tcase{
		{"svgd", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return svgd.Run(ctx, g, start, svgd.Settings{N: 20, Iterations: 150, RecordEvery: 7}, src, rec)
		}},
		{"svgd-fixed", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return svgd.Run(ctx, g, start, svgd.Settings{N: 15, Iterations: 40, RecordEvery: 4, Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}}, src, chargedRec{rec})
		}},
		{"svgd-minibatch", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return svgd.Run(ctx, post, start, svgd.Settings{N: 10, Iterations: 60, Batch: 4, RecordEvery: 5, Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}}, src, rec)
		}},
		{"svgd-plateau", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return svgd.Run(ctx, g, start, svgd.Settings{N: 12, Iterations: 400, RecordEvery: 9, Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopPlateau}}, src, rec)
		}},
		{"sp", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sp.Run(ctx, g, start, sp.Settings{N: 12, Candidates: 10, NelderMeadEvals: 40}, src, rec)
		}},
		{"sp-fixed", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sp.Run(ctx, g, start, sp.Settings{N: 8, Candidates: 10, NelderMeadEvals: 30, Frame: sampler.Frame{Whiten: sp.WhitenNone, Stop: sp.StopFixed}}, src, chargedRec{rec})
		}},
		{"sgld", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sgld.Run(ctx, g, start, sgld.Settings{Iterations: 3000, Chains: 3, RecordEvery: 50}, src, rec)
		}},
		{"sgld-ceiling", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sgld.Run(ctx, g, start, sgld.Settings{Iterations: 2000, BurnIn: 300, Chains: 2, RecordEvery: 10, MinESS: 1e6}, src, rec)
		}},
		{"sgld-fixed", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sgld.Run(ctx, g, start, sgld.Settings{Iterations: 500, Chains: 2, RecordEvery: 20, Frame: sampler.Frame{Stop: sgld.StopFixed, Whiten: sgld.WhitenNone, Workers: 2}}, src, chargedRec{rec})
		}},
		{"sgld-minibatch", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return sgld.Run(ctx, post, start, sgld.Settings{Iterations: 400, Chains: 2, Batch: 4, RecordEvery: 25, Frame: sampler.Frame{Stop: sgld.StopFixed, Whiten: sgld.WhitenNone}}, src, rec)
		}},
	}
	fw := func(ctx context.Context, tg target.Target, s mmdfw.Settings, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
		return mmdfw.Run(ctx, tg, start, s, src, rec)
	}
	// The zero settings (MAP, Laplace whitening, BQ weights) with the
	// exact embedding of the Gaussian.
	var fwZero mmdfw.Settings
	fwZero.N, fwZero.Inputs.Embed = 10, mmdfw.GaussianEmbedding(g)
	// Stein weights by the pairwise solver from a trained start with a
	// minibatch LMO, as experiments/table1.toml's mmdfw-trained, to N.
	var fwTrained mmdfw.Settings
	fwTrained.N, fwTrained.First, fwTrained.Weights, fwTrained.Batch, fwTrained.Noise = 12, mmdfw.FirstTrained, mmdfw.Stein, 4, 0.3
	fwTrained.WeightSolver, fwTrained.Stop = mmdfw.SolverPairwise, mmdfw.StopFixed
	fwTrained.Inputs.Train = &optim.Settings{Steps: 50, Batch: 3}
	// Random features with their exact embedding, MMD weights (FISTA).
	var fwRFF mmdfw.Settings
	fwRFF.N, fwRFF.Kernel, fwRFF.Features, fwRFF.Weights = 10, mmdfw.RFFKernel, 40, mmdfw.MMD
	fwRFF.Inputs.Embed = mmdfw.GaussianEmbedding(g)
	// Stein weights stopped by StopKSD, perturbed candidates by weight.
	var fwKSD mmdfw.Settings
	fwKSD.N, fwKSD.Weights, fwKSD.Stop, fwKSD.KSDSize = 40, mmdfw.Stein, mmdfw.StopKSD, 8
	fwKSD.CandidateInit, fwKSD.Pick = mmdfw.InitPerturb, mmdfw.PickByWeight
	cases = append(cases, []tcase{
		{"mmdfw", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return fw(ctx, g, fwZero, src, rec)
		}},
		{"mmdfw-trained", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return fw(ctx, post, fwTrained, src, chargedRec{rec})
		}},
		{"mmdfw-rff", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return fw(ctx, g, fwRFF, src, rec)
		}},
		{"mmdfw-ksd", func(ctx context.Context, src rand.Source, rec particle.Recorder) (sampler.Result, error) {
			return fw(ctx, g, fwKSD, src, rec)
		}},
	}...)
	// setup is the count of snapshots a run reports from its set-up
	// (MMD-FW's first particle): a run ended by its recorder at one of
	// them ends before it has a state to save, and starts again.
	setup := map[string]int{"mmdfw": 1, "mmdfw-trained": 1, "mmdfw-rff": 1, "mmdfw-ksd": 1}
	for _, c := range cases {
		full := &ckRecorder{}
		res, err := c.run(context.Background(), rand.NewPCG(7, 11), full)
		h := sha256.New()
		hashResult(h, res, err)
		want := fmt.Sprintf("%x", h.Sum(nil))
		n := len(full.snaps)
		if n < 4 {
			t.Fatalf("%s: %d snapshots, too few to interrupt", c.name, n)
		}
		for _, mode := range []string{"after", "refuse", "kill", "early"} {
			for _, at := range []int{1, 2, n / 2, n - 2} {
				if at <= setup[c.name] && (mode == "after" || mode == "refuse") {
					continue
				}
				ctx, cancel := context.WithCancel(context.Background())
				first := &ckRecorder{cancel: cancel, at: at, mode: mode}
				_, err := c.run(ctx, rand.NewPCG(7, 11), first)
				cancel()
				if err == nil {
					t.Errorf("%s %s at %d: the interrupted run returned no error", c.name, mode, at)
					continue
				}
				if first.ck == nil {
					t.Errorf("%s %s at %d: no checkpoint saved", c.name, mode, at)
					continue
				}
				again := &ckRecorder{saved: first.ck}
				res, err := c.run(context.Background(), rand.NewPCG(7, 11), again)
				if again.rerr != nil {
					t.Errorf("%s %s at %d: checkpoint refused: %v", c.name, mode, at, again.rerr)
					continue
				}
				got := append(first.snaps[:first.ckSnaps:first.ckSnaps], again.snaps...)
				if len(got) != n {
					t.Errorf("%s %s at %d: %d snapshots before the checkpoint and %d after, want %d in all", c.name, mode, at, first.ckSnaps, len(again.snaps), n)
					continue
				}
				for i := range got {
					if got[i] != full.snaps[i] {
						t.Errorf("%s %s at %d: snapshot %d differs from the uninterrupted run's", c.name, mode, at, i+1)
						break
					}
				}
				h := sha256.New()
				hashResult(h, res, err)
				if r := fmt.Sprintf("%x", h.Sum(nil)); r != want {
					t.Errorf("%s %s at %d: result differs from the uninterrupted run's", c.name, mode, at)
				}
			}
		}
	}
}

// TestResumeRefusesBadCheckpoint gives a run checkpoints that do not
// decode or belong to another run: each is refused with a reason, and the
// run is the uninterrupted one.
func TestResumeRefusesBadCheckpoint(t *testing.T) {
	g, err := target.NewGaussian([]float64{1, -1}, mat.NewSymDense(2, []float64{1, 0.5, 0.5, 2}))
	if err != nil {
		t.Fatal(err)
	}
	start := particle.Start{X0: []float64{0.5, 0.5}}
	run := func(ctx context.Context, n int, rec particle.Recorder) (sampler.Result, error) {
		return svgd.Run(ctx, g, start, svgd.Settings{N: n, Iterations: 30, RecordEvery: 3, Frame: sampler.Frame{Whiten: svgd.WhitenNone, Stop: svgd.StopFixed}}, rand.NewPCG(1, 2), rec)
	}
	full := &ckRecorder{}
	if _, err := run(context.Background(), 10, full); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	other := &ckRecorder{cancel: cancel, at: 3, mode: "after"}
	run(ctx, 12, other) // a run of 12 particles, interrupted
	cancel()
	if other.ck == nil {
		t.Fatal("no checkpoint saved")
	}
	flipped := append([]byte(nil), other.ck...)
	flipped[len(flipped)/2] ^= 0xff
	for name, b := range map[string][]byte{
		"garbage":         []byte("not a checkpoint"),
		"truncated":       other.ck[:len(other.ck)/2],
		"flipped":         flipped,
		"other particles": other.ck,
	} {
		rec := &ckRecorder{saved: b}
		if _, err := run(context.Background(), 10, rec); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if rec.rerr == nil && name != "flipped" {
			t.Errorf("%s: checkpoint accepted", name)
		}
		if rec.rerr != nil && fmt.Sprint(rec.snaps) != fmt.Sprint(full.snaps) {
			t.Errorf("%s: a refused checkpoint changed the run", name)
		}
	}
}
