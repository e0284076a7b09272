package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// KindSVGDAnchor is the method kind of the SVGD reference protocol for the
// BNN, run as the reference code runs it (see SVGDAnchorConfig).
const KindSVGDAnchor = "svgd-anchor"

// SVGDAnchorConfig is the settings table of an svgd-anchor method: the SVGD
// reference code's neural-network protocol on the cell's training rows.
//
//   - The last DevelopmentRows(N) training rows are held out as development
//     rows; the network trains on the other N₀ = N − m rows, standardised
//     again with their own mean and population standard deviation (a
//     column constant on them gets mean its value and scale 1).
//   - Initial particles: model.BNN.Init on the N₀ rows.
//   - Minibatches of consecutive rows, iteration t using rows
//     (t·|B| + k) mod N₀ (svgd.Settings.Sequential), AdaGrad with
//     momentum (svgd's defaults are the reference's).
//   - After training, each particle's log γ is replaced by
//     −log meanᵢ(ŷᵢ − yᵢ)² over the development rows, on the original
//     scale of y, when that raises the development log-likelihood
//     Σᵢ log N(yᵢ | ŷᵢ, e^{−log γ}) (with the trained log γ taken as it
//     stands, as the reference does); the test log-likelihood then uses
//     e^{log γ} as the precision on the original scale.
//
// The particles the recorder and the metrics see are mapped exactly back
// into the cell's standardisation (first layer, output layer and log γ), so
// that the experiment's metrics compute the reference's RMSE and test
// log-likelihood. Snapshots before the last map log γ consistently (the
// precision γ of the N₀ rows' scale); only the last one carries the
// development step.
type SVGDAnchorConfig struct {
	svgd.Settings
}

// Validate checks the package's settings; the protocol needs minibatches.
func (c SVGDAnchorConfig) Validate() error {
	s := c.Settings
	referenceCodeSVGD(&s)
	if err := s.Validate(); err != nil {
		return err
	}
	if c.Batch < 0 {
		return fieldErr("batch", "%d: the reference protocol uses minibatches", c.Batch)
	}
	if c.Sequential {
		return fieldErr("sequential", "is implied by the svgd-anchor kind")
	}
	return nil
}

// frame is the standardisation of the N₀ training rows relative to the
// cell's: x' = (z − a)/s per column, y' = (z_y − ay)/sy, with z, z_y the
// cell's standardised rows.
type frame struct {
	a, s   []float64
	ay, sy float64
}

// newFrame returns the mean and population standard deviation of the
// columns of X and of y; a column whose values are all equal gets mean that
// value (so it standardises to exactly 0) and scale 1.
func newFrame(X *mat.Dense, y []float64) frame {
	n, p := X.Dims()
	f := frame{a: make([]float64, p), s: make([]float64, p)}
	col := make([]float64, n)
	for j := 0; j < p; j++ {
		for i := 0; i < n; i++ {
			col[i] = X.At(i, j)
		}
		f.a[j], f.s[j] = meanSD(col)
	}
	f.ay, f.sy = meanSD(y)
	return f
}

// meanSD returns the mean and the population standard deviation of v, or
// (v[0], 1) when every value equals v[0] or the deviation is zero.
func meanSD(v []float64) (float64, float64) {
	same := true
	for _, x := range v {
		if x != v[0] {
			same = false
			break
		}
	}
	if same {
		return v[0], 1
	}
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	sd := math.Sqrt(ss / float64(len(v)))
	if sd == 0 {
		sd = 1
	}
	return m, sd
}

// apply returns the rows of X (cell standardisation) in the frame.
func (f frame) apply(X *mat.Dense) *mat.Dense {
	n, p := X.Dims()
	out := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		src, dst := X.RawRowView(i), out.RawRowView(i)
		for j := range dst {
			dst[j] = (src[j] - f.a[j]) / f.s[j]
		}
	}
	return out
}

// toCell writes into dst the network θ' of the frame re-expressed in the
// cell's standardisation, θ = [W1, b1, w2, b2, log γ, log λ]:
//
//	W1[j,k] = W1'[j,k]/sⱼ,  b1[k] = b1'[k] − Σⱼ W1'[j,k] aⱼ/sⱼ,
//	w2 = sy·w2',  b2 = sy·b2' + ay,  log γ = lg, log λ = log λ'.
//
// The caller chooses lg.
func (f frame) toCell(dst, th []float64, p, h int, lg float64) {
	copy(dst, th)
	for k := 0; k < h; k++ {
		b := th[p*h+k]
		for j := 0; j < p; j++ {
			w := th[j*h+k] / f.s[j]
			dst[j*h+k] = w
			b -= w * f.a[j]
		}
		dst[p*h+k] = b
		dst[p*h+h+k] = f.sy * th[p*h+h+k]
	}
	dst[p*h+2*h] = f.sy*th[p*h+2*h] + f.ay
	dst[len(dst)-2] = lg
}

// devLogGamma returns the reference's development choice of log γ for the
// particle th of sub: the trained value lg, or −log of the mean squared
// development error on the original scale when that gives the higher
// development log-likelihood. yMean and ySD map sub's outputs to the
// original scale; yDev is on the original scale.
func devLogGamma(sub *model.BNN, th []float64, XDev *mat.Dense, yDev []float64, yMean, ySD float64) float64 {
	d := len(th)
	pred := sub.Predict(nil, XDev, mat.NewDense(1, d, th), []float64{1}, yMean, ySD)
	var sse float64
	for i, y := range yDev {
		r := pred[i] - y
		sse += r * r
	}
	n := float64(len(yDev))
	lik := func(lg float64) float64 {
		return n*(lg/2-0.5*math.Log(2*math.Pi)) - 0.5*sse*math.Exp(lg)
	}
	lg := th[d-2]
	if lg2 := -math.Log(sse / n); lik(lg2) > lik(lg) {
		return lg2
	}
	return lg
}

func runSVGDAnchor(ctx context.Context, in harness.Input[SVGDAnchorConfig]) (harness.Output, error) {
	md, err := modelOf(in.Problem)
	if err != nil {
		return harness.Output{}, err
	}
	d := md.Network()
	if d == nil || d.XTrain == nil {
		return harness.Output{}, fmt.Errorf("%s needs a regression dataset, not %s", KindSVGDAnchor, md.About().Name)
	}
	if in.Env != nil && in.Env.Rows().HeldOut() {
		return harness.Output{}, errors.New(KindSVGDAnchor + " holds out its own development rows: evaluate it on the test rows")
	}
	nTrain, p := d.XTrain.Dims()
	m := DevelopmentRows(nTrain)
	if m < 1 || m >= nTrain {
		return harness.Output{}, fmt.Errorf("%s: %d training rows are too few for development rows", d.Name, nTrain)
	}
	n0 := nTrain - m
	z := d.XTrain.Slice(0, n0, 0, p).(*mat.Dense)
	f := newFrame(z, d.YTrain[:n0])
	X0 := f.apply(z)
	y0 := make([]float64, n0)
	for i, v := range d.YTrain[:n0] {
		y0[i] = (v - f.ay) / f.sy
	}
	h := d.BNN.Hidden()
	sub := model.NewBNN(X0, y0, h)
	sub.A0, sub.B0 = d.BNN.A0, d.BNN.B0
	sub.Workers = in.Threads
	XDev := f.apply(d.XTrain.Slice(n0, nTrain, 0, p).(*mat.Dense))
	yDev := make([]float64, m)
	for i, v := range d.YTrain[n0:] {
		yDev[i] = v*d.YSD + d.YMean
	}
	// The reference's mean and standard deviation of y on the N₀ rows, on
	// the original scale.
	refMean, refSD := f.ay*d.YSD+d.YMean, f.sy*d.YSD

	c := in.Settings
	s := c.Settings
	n := cmp.Or(in.N, 20)
	s.N, s.Workers, s.RecordEvery, s.Sequential = n, in.Threads, max(1, c.RecordEvery), true
	s.Iterations = cmp.Or(s.Iterations, 2000)
	referenceCodeSVGD(&s)
	rng := rand.New(in.Src)
	dim := sub.Dim()
	start := particle.Start{Particles: mat.NewDense(n, dim, nil)}
	for i := 0; i < n; i++ {
		sub.Init(rng, start.Particles.RawRowView(i))
	}
	// log γ in the cell's scale: variance YSD²/γ_cell = refSD²/γ' for the
	// trained precision γ' of the N₀ rows' scale, and YSD²/γ_cell = 1/γ_ref
	// for the reference's final original-scale precision γ_ref.
	cellLG := 2 * math.Log(d.YSD/refSD)
	devLG := 2 * math.Log(d.YSD)
	final := func(X *mat.Dense) *mat.Dense {
		out := mat.NewDense(n, dim, nil)
		for i := 0; i < n; i++ {
			th := X.RawRowView(i)
			lg := devLogGamma(sub, th, XDev, yDev, refMean, refSD)
			f.toCell(out.RawRowView(i), th, p, h, lg+devLG)
		}
		return out
	}
	buf := mat.NewDense(n, dim, nil)
	rec := particle.RecorderFunc(func(snap particle.Snapshot) error {
		if in.Recorder == nil {
			return nil
		}
		if snap.Step == s.Iterations {
			snap.X = final(snap.X)
		} else {
			// One buffer for every intermediate snapshot: a recorder
			// copies what it keeps, as it must for svgd's own particles.
			for i := 0; i < n; i++ {
				th := snap.X.RawRowView(i)
				f.toCell(buf.RawRowView(i), th, p, h, th[dim-2]+cellLG)
			}
			snap.X = buf
		}
		return in.Recorder.Record(snap)
	})
	set, err := sampler.Set(svgd.Run(ctx, sub, start, s, in.Src, rec))
	if set.X != nil && err == nil {
		set.X = final(set.X)
	} else {
		set = particle.Set{}
	}
	return harness.Output{Set: set, Summary: summary(ctx, in.Env, d, map[string]any{
		"training_rows": n0, "development_rows": m,
	}, nil)}, err
}

// referenceCodeSVGD sets, where s leaves them out, what the SVGD reference
// code does: the target's own coordinates (whiten "none") with its step
// (svgd.DefaultStepSize) and a fixed iteration count (stop "fixed",
// svgd.DefaultIterations). It defines the svgd-anchor kind, which is that
// code's protocol, and the SVGD particles of MMD-FW's init or start "svgd"
// (svgd_iterations, svgd_step), which the paper takes from that code.
func referenceCodeSVGD(s *svgd.Settings) {
	if s.Whiten == "" {
		s.Whiten = svgd.WhitenNone
		s.StepSize = cmp.Or(s.StepSize, svgd.DefaultStepSize)
	}
	if s.Stop == "" {
		s.Stop = svgd.StopFixed
		s.Iterations = cmp.Or(s.Iterations, svgd.DefaultIterations)
	}
}
