package mmdfw

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/optim"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// ckCases are runs whose states the checkpoint tests save: the zero
// settings with an exact embedding, a trained start with Stein weights by
// the pairwise solver and a minibatch LMO, random features with MMD
// weights (a given bandwidth), StopKSD, and BQ under ChaCha8 (a given
// bandwidth).
func ckCases(t *testing.T) []struct {
	name string
	t    target.Target
	s    Settings
	src  func() rand.Source
} {
	g, post := testutil.GaussianAndPosterior(t)
	pcg := func() rand.Source { return rand.NewPCG(3, 5) }
	var zero, trained, rff, ksd, chacha Settings
	zero.N, zero.Inputs.Embed = 8, GaussianEmbedding(g)
	trained.N, trained.First, trained.Weights, trained.Batch, trained.Noise = 10, FirstTrained, Stein, 4, 0.3
	trained.WeightSolver, trained.Stop = SolverPairwise, StopFixed
	trained.Inputs.Train = &optim.Settings{Steps: 50, Batch: 3}
	rff.N, rff.Kernel, rff.Features, rff.Weights = 8, RFFKernel, 30, MMD
	rff.Inputs.Embed, rff.Bandwidth = GaussianEmbedding(g), 1.5
	ksd.N, ksd.Weights, ksd.Stop, ksd.KSDSize = 30, Stein, StopKSD, 8
	ksd.CandidateInit, ksd.Pick = InitPerturb, PickByWeight
	chacha.N, chacha.Weights, chacha.Scale, chacha.Inputs.Embed, chacha.Bandwidth = 8, BQ, ScaleBandwidth, GaussianEmbedding(g), 1.5
	return []struct {
		name string
		t    target.Target
		s    Settings
		src  func() rand.Source
	}{
		{"zero", g, zero, pcg},
		{"trained", post, trained, pcg},
		{"rff", g, rff, pcg},
		{"ksd", g, ksd, pcg},
		{"chacha8", g, chacha, func() rand.Source { return rand.NewChaCha8([32]byte{7}) }},
	}
}

// evolving returns, printed, every part of st that its steps change,
// the random stream's state included: two states that print the same
// continue the same.
func evolving(t *testing.T, st *State) string {
	r := st.r
	src, err := r.src.(interface{ MarshalBinary() ([]byte, error) }).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	n, d := r.n, r.d
	wt := r.wt
	c := wt.cap
	v := []any{
		st.Particles, st.GradEvals, st.Bandwidth, st.Settled, src, n,
		r.evals, r.mapEvals, r.poolEvals, r.svgdEvals, r.lapEvals, r.trainEvals, r.h, r.eps,
		r.X.RawMatrix().Data[:n*d], r.S.RawMatrix().Data[:n*d], r.lp[:n], r.mmd,
		wt.n, wt.w[:n], block(wt.K, c, n), block(wt.L, c, n), block(wt.K0, c, n),
	}
	if wt.z != nil {
		v = append(v, wt.z[:n])
	}
	if wt.qp.nb != nil {
		v = append(v, wt.qp.nb[:n])
	}
	if p := &wt.qp; p.pairwise {
		v = append(v, p.g[:n], p.diag[:n], p.sup, p.pos[:n], p.maxAbs, p.drift, p.stats)
	}
	if r.rff != nil {
		v = append(v, r.phi.RawMatrix().Data[:n*r.rff.Len()])
	}
	if r.ks != nil {
		v = append(v, *r.ks, r.ksPrev)
	}
	return fmt.Sprintf("%#v", v)
}

// resultOf prints the result of st.
func resultOf(st *State) string {
	res, err := st.Result()
	d := res.Detail.(*Result)
	return fmt.Sprintf("%v %v %v %v %#v %v %v %#v", mat.Formatted(res.Set.X), res.Set.W, res.Set.Diag, err, d.MMD2, res.Cost.GradEvals, d.Bandwidth, d.WeightSolve)
}

// TestStateRestoresEvolvingState saves states after k particles and
// restores them into fresh states of the same run: every part that the
// steps change is restored, the result read at once is the saved
// state's, and the two states continue alike to the end.
func TestStateRestoresEvolvingState(t *testing.T) {
	ctx := context.Background()
	start := particle.Start{X0: []float64{0.5, 0.5}}
	for _, c := range ckCases(t) {
		full, err := Init(ctx, c.t, start, c.s, c.src())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		steps := 0
		for !full.Done() {
			if err := full.Step(ctx); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			steps++
		}
		for _, k := range []int{0, 1, steps / 2, steps} {
			a, err := Init(ctx, c.t, start, c.s, c.src())
			if err != nil {
				t.Fatal(err)
			}
			for range k {
				if err := a.Step(ctx); err != nil {
					t.Fatal(err)
				}
			}
			b, err := a.MarshalState()
			if err != nil {
				t.Fatalf("%s after %d: %v", c.name, k, err)
			}
			z, err := Init(ctx, c.t, start, c.s, c.src())
			if err != nil {
				t.Fatal(err)
			}
			if err := z.UnmarshalState(b); err != nil {
				t.Fatalf("%s after %d: %v", c.name, k, err)
			}
			if got, want := evolving(t, z), evolving(t, a); got != want {
				t.Errorf("%s after %d: restored state\n%s\nwant\n%s", c.name, k, got, want)
				continue
			}
			if got, want := resultOf(z), resultOf(a); got != want {
				t.Errorf("%s after %d: restored result\n%s\nwant\n%s", c.name, k, got, want)
			}
			for !a.Done() {
				if err := a.Step(ctx); err != nil {
					t.Fatal(err)
				}
				if err := z.Step(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if !z.Done() {
				t.Errorf("%s after %d: the restored run is not done with the saved one", c.name, k)
			}
			if got, want := resultOf(z), resultOf(full); got != want {
				t.Errorf("%s after %d: resumed result\n%s\nwant\n%s", c.name, k, got, want)
			}
		}
	}
}

// TestStateRefusesOtherCheckpoint gives states checkpoints of other runs
// (another ceiling, bandwidth, weight rule or solver, random features,
// stopping rule, source type) and broken bytes: each is refused and
// leaves the state as it was.
func TestStateRefusesOtherCheckpoint(t *testing.T) {
	ctx := context.Background()
	start := particle.Start{X0: []float64{0.5, 0.5}}
	cs := ckCases(t)
	saved := func(s Settings, src rand.Source, tg target.Target) []byte {
		st, err := Init(ctx, tg, start, s, src)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := st.Step(ctx); err != nil {
				t.Fatal(err)
			}
		}
		b, err := st.MarshalState()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	zero, rffc, ksd, chacha := cs[0], cs[2], cs[3], cs[4]
	wider := zero.s
	wider.Bandwidth = 3
	longer := zero.s
	longer.N = 9
	lines := zero.s
	lines.Weights = LineSearch
	fista := cs[1].s
	fista.WeightSolver = SolverFISTA
	fixed := ksd.s
	fixed.Stop = StopFixed
	for _, w := range []struct {
		name   string
		into   int // the case restored into
		b      []byte
		reason string
	}{
		{"garbage", 0, []byte("not a state"), "does not decode"},
		{"ceiling", 0, saved(longer, zero.src(), zero.t), "particles at most"},
		{"bandwidth", 0, saved(wider, zero.src(), zero.t), "bandwidth"},
		{"rule", 0, saved(lines, zero.src(), zero.t), "weights"},
		{"solver", 1, saved(fista, cs[1].src(), cs[1].t), "solver"},
		{"features", 2, saved(rffc.s, rand.NewPCG(9, 9), rffc.t), "random features"},
		{"stop", 3, saved(fixed, ksd.src(), ksd.t), "stopping rule"},
		{"source type", 4, saved(chacha.s, rand.NewPCG(1, 1), chacha.t), "random stream"},
	} {
		c := cs[w.into]
		st, err := Init(ctx, c.t, start, c.s, c.src())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Step(ctx); err != nil {
			t.Fatal(err)
		}
		before := evolving(t, st)
		err = st.UnmarshalState(w.b)
		switch {
		case err == nil:
			t.Errorf("%s: checkpoint accepted", w.name)
		case !strings.Contains(err.Error(), w.reason):
			t.Errorf("%s: error %q does not say %q", w.name, err, w.reason)
		}
		if evolving(t, st) != before {
			t.Errorf("%s: a refused checkpoint changed the state", w.name)
		}
	}
}
