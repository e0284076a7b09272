package svgd

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/race"
	"github.com/mmdfw/mmdfw/internal/testutil"
	"github.com/mmdfw/mmdfw/pkg/dense"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// serialIteration is one iteration as the single-goroutine code wrote it
// before the direction was split into team jobs: the scores, the upper
// strips of X Xᵀ, the distances, the median, symGram's exponentials with
// its running row sums, T, K·T, the diagonal term, then AdaGrad over all
// rows. The split iteration must reproduce it bit for bit.
func serialIteration(t target.StochasticBatched, x, hist *mat.Dense, batch []int, s Settings, excludeDiag bool, first bool) {
	n, d := x.Dims()
	scores, phi := mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
	t.MinibatchLogProbGradBatch(x, scores, make([]float64, n), batch)
	xr := x.RawMatrix()
	xt := make([]float64, d*n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			xt[j*n+i] = xr.Data[i*xr.Stride+j]
		}
	}
	k := mat.NewDense(n, n, nil)
	raw := k.RawMatrix()
	for i0 := 0; i0 < n; i0 += 4 {
		rows, j0 := min(4, n-i0), i0&^7
		dense.MulNN(rows, n-j0, d, 1, xr.Data[i0*xr.Stride:], xr.Stride, xt[j0:], n, raw.Data[i0*raw.Stride+j0:], raw.Stride)
	}
	norms := make([]float64, n)
	for i := range norms {
		norms[i] = raw.Data[i*raw.Stride+i]
	}
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] = 0
		for j := i + 1; j < n; j++ {
			v := norms[i] + norms[j] - 2*raw.Data[i*raw.Stride+j]
			if v < 0 {
				v = 0
			}
			raw.Data[i*raw.Stride+j] = v
			raw.Data[j*raw.Stride+i] = v
		}
	}
	h := s.Bandwidth
	if h == 0 {
		h = kernel.SVGDBandwidth(kernel.MedianSq(k, !excludeDiag, make([]float64, n*n)), n)
	}
	inv2 := 1 / (h * h)
	rowSum := make([]float64, n)
	for i := range rowSum {
		rowSum[i] = 1
	}
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] = 1
		row := raw.Data[i*raw.Stride+i+1 : i*raw.Stride+n]
		dense.ExpScaled(row, -inv2/2)
		for c, v := range row {
			j := i + 1 + c
			raw.Data[j*raw.Stride+i] = v
			rowSum[i] += v
			rowSum[j] += v
		}
	}
	T := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			T.Set(i, j, scores.At(i, j)-inv2*x.At(i, j))
		}
	}
	invN := 1 / float64(n)
	tr, pr := T.RawMatrix(), phi.RawMatrix()
	dense.MulNN(n, d, n, invN, raw.Data, raw.Stride, tr.Data, tr.Stride, pr.Data, pr.Stride)
	for i := 0; i < n; i++ {
		c := rowSum[i] * inv2 * invN
		out := phi.RawRowView(i)
		for j, v := range x.RawRowView(i) {
			out[j] += c * v
		}
	}
	for i := 0; i < n; i++ {
		dense.AdaGrad(x.RawRowView(i), phi.RawRowView(i), hist.RawRowView(i), s.StepSize, s.Alpha, s.Fudge, first)
	}
}

// teamCase is a target and particle shape of TestTeamSameBits.
type teamCase struct {
	name  string
	t     target.StochasticBatched
	n     int
	batch int
	step  float64
	excl  bool
	bw    float64 // a fixed bandwidth; 0: the median heuristic
}

func teamCases() []teamCase {
	rng := rand.New(rand.NewPCG(11, 12))
	lr := model.NewLogistic(testutil.LogisticData(rng, 3000, 55))
	bnn := model.NewBNN(testutil.RandDense(rng, 2000, 16), testutil.RandVec(rng, 2000, 1), 50)
	return []teamCase{
		{"logistic n=100 d=56", lr, 100, 100, 0.05, false, 0},
		{"logistic n=37 d=56 excluding the diagonal", lr, 37, 64, 0.05, true, 0},
		{"logistic n=20 d=56 (one goroutine)", lr, 20, 100, 0.05, false, 0},
		{"bnn n=20 d=903", bnn, 20, 100, 1e-3, false, 0},
		{"logistic n=100 d=56, fixed bandwidth", lr, 100, 100, 0.05, false, 0.7},
	}
}

func teamInit(c teamCase) *mat.Dense {
	rng := rand.New(rand.NewPCG(13, uint64(c.n)))
	d := c.t.Dim()
	init := mat.NewDense(c.n, d, nil)
	for i := 0; i < c.n; i++ {
		for j := 0; j < d; j++ {
			init.Set(i, j, 0.1*rng.NormFloat64())
		}
	}
	return init
}

// TestTeamSameBits: the particles after 70 iterations have the same bits
// with 1 and 2 workers at GOMAXPROCS 1 and 2, and equal the iteration
// written out serially (serialIteration) on the same batches, for the
// logistic model (scores split too) and the network (direction split by
// columns).
func TestTeamSameBits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const iters = 2*pickBlock + 6 // a block on the team, one alone, then the faster
	for _, c := range teamCases() {
		init := teamInit(c)
		s := Settings{Frame: sampler.Frame{Whiten: WhitenNone, Stop: StopFixed}, Iterations: iters, StepSize: c.step, Batch: c.batch, ExcludeDiagonal: c.excl, Bandwidth: c.bw}
		// The reference: the batches of a run, the serial iteration.
		ref, err := newState(c.t, Settings{StepSize: c.step, Batch: c.batch, Frame: sampler.Frame{Workers: 1}}, particle.Start{Particles: init}, rand.NewPCG(21, 22))
		if err != nil {
			t.Fatal(err)
		}
		x := mat.DenseCopyOf(init)
		hist := mat.NewDense(c.n, c.t.Dim(), nil)
		rs, _ := s.resolved()
		for it := 0; it < iters; it++ {
			ref.computeScores(nil, nil) // advances the batch as Run does
			serialIteration(c.t, x, hist, ref.batch, rs, c.excl, it == 0)
		}
		ref.close()
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			for _, w := range []int{1, 2} {
				s.Workers = w
				got, err := sampler.Set(Run(context.Background(), c.t, particle.Start{Particles: init}, s, rand.NewPCG(21, 22), nil))
				if err != nil {
					t.Fatal(err)
				}
				if i, j, ok := sameBits(got.X, x); !ok {
					t.Errorf("%s, GOMAXPROCS %d, %d workers: particle %d coordinate %d is %v, serial %v",
						c.name, procs, w, i, j, got.X.At(i, j), x.At(i, j))
				}
			}
		}
	}
}

func sameBits(a, b *mat.Dense) (int, int, bool) {
	n, d := a.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return i, j, false
			}
		}
	}
	return 0, 0, true
}

// TestTeamIterationAllocatesNothing: the split iteration allocates
// nothing on the logistic and network shapes.
func TestTeamIterationAllocatesNothing(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2")
	}
	for _, c := range teamCases() {
		st, err := newState(c.t, Settings{StepSize: c.step, Batch: c.batch, Frame: sampler.Frame{Workers: 2}}, particle.Start{Particles: teamInit(c)}, rand.NewPCG(1, 2))
		if err != nil {
			t.Fatal(err)
		}
		it := 0
		if a := race.AllocsPerRun(t, 20, func() { st.step(it); it++ }); a != 0 {
			t.Errorf("%s: %v allocations per iteration", c.name, a)
		}
		st.close()
	}
}
