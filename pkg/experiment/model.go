package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// Model is the Problem.Model of every dataset of this wiring: what its
// metrics and method kinds need of a dataset's model beyond the posterior.
// There is one implementation per model: *Info (a posterior with nothing
// beside it), *LogisticData (logistic regression), *BNNData (a Bayesian
// neural network) and *GaussData (an exact Gaussian target). A new model
// embeds *Info, which answers "none" to everything, and overrides what it
// has; the metrics and methods ask it, never its type.
type Model interface {
	harness.Model
	// About returns the dataset's name, label, subset flag and data key.
	About() *Info
	// Predictive returns the predictive check on the evaluation rows (dev
	// false) or on the development rows of eval.rows =
	// "development+test" (dev true), nil when the model has none there.
	Predictive(dev bool) *Predictive
	// OwnStart reports whether the model has an initialisation of its own
	// (init "model"), which the methods' default starts ("") then use.
	OwnStart() bool
	// Start returns n starting particles for the init value how: "model"
	// (the model's own initialisation), InitReference (the SVGD reference
	// scripts' start), "" (the model's own when OwnStart, else the prior)
	// or "prior"; nil means the method's prior draws. An init the model
	// does not have is an error naming it.
	Start(how string, n int, rng *rand.Rand) (*mat.Dense, error)
	// Exact returns the Gaussian posterior and the RBF bandwidth of its
	// exact MMD², nil when the posterior is not an exact Gaussian.
	Exact() (*target.Gaussian, float64)
	// Network returns the BNN of a regression dataset with its training
	// rows and the scale of y, nil for other models.
	Network() *BNNData
}

// Info is what every model says of its dataset, and a Model by itself: a
// posterior with no test rows, no start of its own, no exact form and no
// network.
type Info struct {
	// Name is the registered dataset name; Label is what results and
	// figures call it ("Covertype (20,000-row prefix)").
	Name, Label string
	// Subset marks data that is a prefix of the published dataset.
	Subset bool
	// Key identifies the bytes the problem was built from (a hash of the
	// data files' sha256), for the keys of shared artefacts (MAP points).
	Key string
}

// Describe is the dataset's entries of every provenance summary:
// "dataset_label" and "dataset_subset".
func (i *Info) Describe() map[string]any {
	return map[string]any{"dataset_label": i.Label, "dataset_subset": i.Subset}
}

// About returns i.
func (i *Info) About() *Info { return i }

// Predictive returns nil: no rows to predict.
func (i *Info) Predictive(dev bool) *Predictive { return nil }

// OwnStart is false.
func (i *Info) OwnStart() bool { return false }

// Start returns nil (prior draws) for "" and "prior", an error otherwise.
func (i *Info) Start(how string, n int, rng *rand.Rand) (*mat.Dense, error) {
	if how == "" || how == "prior" {
		return nil, nil
	}
	return nil, fmt.Errorf("init = %q needs a BNN dataset (%q: a BNN or logistic one)", how, InitReference)
}

// Exact returns nil.
func (i *Info) Exact() (*target.Gaussian, float64) { return nil, 0 }

// Network returns nil.
func (i *Info) Network() *BNNData { return nil }

// LogisticData is Bayesian logistic regression: the model and its
// predictive check (accuracy, test_ll) on the evaluation rows and, when
// carved, on the development rows.
type LogisticData struct {
	Info
	// Logistic is the posterior's model.
	Logistic *model.Logistic

	test, dev *Predictive
}

// NewLogisticData returns the model m with labels ±1 y on the evaluation
// rows X and, when XDev is not nil, yDev on the development rows XDev.
func NewLogisticData(info Info, m *model.Logistic, X *mat.Dense, y []float64, XDev *mat.Dense, yDev []float64) *LogisticData {
	d := &LogisticData{Info: info, Logistic: m}
	pred := func(x *mat.Dense, y []float64) *Predictive {
		return &Predictive{names: [2]string{Accuracy, TestLL}, rows: x, eval: func(X *mat.Dense, w []float64) (float64, float64) {
			return m.Metrics(x, y, X, w)
		}}
	}
	d.test = pred(X, y)
	if XDev != nil {
		d.dev = pred(XDev, yDev)
	}
	return d
}

// Predictive returns the check of (accuracy, test_ll) on the evaluation
// or development rows.
func (d *LogisticData) Predictive(dev bool) *Predictive {
	if dev {
		return d.dev
	}
	return d.test
}

// Start returns the reference logistic script's start for InitReference
// and nil (prior draws) for "" and "prior".
func (d *LogisticData) Start(how string, n int, rng *rand.Rand) (*mat.Dense, error) {
	if how == InitReference {
		return logisticReferenceInit(d.Logistic, n, rng), nil
	}
	return d.Info.Start(how, n, rng)
}

// BNNData is a one-hidden-layer BNN on a regression dataset: the model, its
// training rows, the scale of y and its predictive check (rmse, test_ll on
// the original scale of y).
type BNNData struct {
	Info
	// BNN is the posterior's model.
	BNN *model.BNN
	// XTrain and YTrain are the BNN's own training rows (standardised y,
	// the rows its likelihood holds): MMD-FW's trained start carves rows of
	// its own from them, the closed-form baselines and the SVGD anchor arm
	// fit on them; they never include the evaluation rows.
	XTrain *mat.Dense
	YTrain []float64
	// YMean and YSD are the training mean and standard deviation of y.
	YMean, YSD float64
	// XTest holds the features of the evaluation rows (fmmd2 compares the
	// networks' outputs at its first rows).
	XTest *mat.Dense

	test, dev *Predictive
}

// NewBNNData returns the network m with its training rows (Xtr, ytr
// standardised), the evaluation rows X with responses y on the original
// scale, the development rows XDev with yDev (nil for none), and the
// training mean and standard deviation of y.
func NewBNNData(info Info, m *model.BNN, Xtr *mat.Dense, ytr []float64, X *mat.Dense, y []float64, XDev *mat.Dense, yDev []float64, yMean, ySD float64) *BNNData {
	d := &BNNData{Info: info, BNN: m, XTrain: Xtr, YTrain: ytr, YMean: yMean, YSD: ySD, XTest: X}
	pred := func(x *mat.Dense, y []float64) *Predictive {
		// The outputs of particles that stay put from one snapshot to the
		// next (MMD-FW's) are computed once; Predictive.Eval serialises
		// the calls.
		var c *model.MetricsCache
		return &Predictive{names: [2]string{RMSE, TestLL}, rows: x, eval: func(X *mat.Dense, w []float64) (float64, float64) {
			if c == nil {
				c = m.NewMetricsCache(x, y, yMean, ySD)
			}
			return c.Metrics(X, w)
		}}
	}
	d.test = pred(X, y)
	if XDev != nil {
		d.dev = pred(XDev, yDev)
	}
	return d
}

// Predictive returns the check of (rmse, test_ll) on the evaluation or
// development rows.
func (d *BNNData) Predictive(dev bool) *Predictive {
	if dev {
		return d.dev
	}
	return d.test
}

// OwnStart is true: model.BNN.Init.
func (d *BNNData) OwnStart() bool { return true }

// Start returns n rows of model.BNN.Init for "", "model" and
// InitReference (the reference code's start is the same), nil for "prior".
func (d *BNNData) Start(how string, n int, rng *rand.Rand) (*mat.Dense, error) {
	if how == "prior" {
		return nil, nil
	}
	X := mat.NewDense(n, d.BNN.Dim(), nil)
	for i := 0; i < n; i++ {
		d.BNN.Init(rng, X.RawRowView(i))
	}
	return X, nil
}

// Network returns d.
func (d *BNNData) Network() *BNNData { return d }

// GaussData is an exact Gaussian target with the RBF bandwidth of its exact
// MMD² (fixed per dataset, the same for every method).
type GaussData struct {
	Info
	// Gauss is the posterior.
	Gauss *target.Gaussian
	// EvalH is the bandwidth of the exact MMD².
	EvalH float64
}

// Exact returns the target and its bandwidth.
func (d *GaussData) Exact() (*target.Gaussian, float64) { return d.Gauss, d.EvalH }

// Predictive evaluates a snapshot's two predictive metrics on fixed rows
// (accuracy and test_ll, or rmse and test_ll), remembering the last
// snapshot's values, so that the metrics of one snapshot share one pass
// over the rows.
type Predictive struct {
	names [2]string
	rows  *mat.Dense
	eval  func(X *mat.Dense, w []float64) (float64, float64)

	mu    sync.Mutex
	cache predCache
}

// Index returns which of Eval's two values is the metric name, or -1 when
// the check does not compute it.
func (p *Predictive) Index(name string) int {
	if p == nil {
		return -1
	}
	return slices.Index(p.names[:], name)
}

// Rows returns the number of rows the check evaluates.
func (p *Predictive) Rows() int {
	r, _ := p.rows.Dims()
	return r
}

// Eval returns the two metrics of the snapshot.
func (p *Predictive) Eval(s particle.Snapshot) (float64, float64) {
	k := predKey{s.X, s.Step, s.GradEvals, s.Seconds}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cache.ok && p.cache.key == k {
		return p.cache.a, p.cache.b
	}
	a, b := p.eval(s.X, s.W)
	p.cache = predCache{key: k, a: a, b: b, ok: true}
	return a, b
}

// predKey identifies one snapshot, so that accuracy and test_ll (or rmse and
// test_ll) of the same snapshot share one pass over the rows.
type predKey struct {
	x     *mat.Dense
	step  int
	grads int64
	secs  float64
}

type predCache struct {
	key  predKey
	a, b float64
	ok   bool
}

// modelOf returns the wiring's model of a problem.
func modelOf(p *harness.Problem) (Model, error) {
	m, ok := p.Model.(Model)
	if !ok {
		return nil, fmt.Errorf("problem of type %T is not from this wiring", p.Model)
	}
	return m, nil
}

// RefInfo describes the reference sample an mmd2 metric measured against; it
// goes into the provenance summary of the cell under "reference".
type RefInfo struct {
	Kind  string `json:"kind"`
	Draws int    `json:"draws"`
	// Chains is the reference's chain count (its draws are iteration-major).
	Chains int `json:"chains,omitempty"`
	// Bandwidth is the RBF bandwidth of mmd2.
	Bandwidth float64 `json:"bandwidth"`
	// Diagnostics is the reference method's own summary (for HMC: max R̂,
	// min ESS, flagged, reasons, per-chain acceptance, divergences, step
	// size).
	Diagnostics any `json:"diagnostics,omitempty"`
	// Floors holds, by metric name (mmd2, fmmd2), the within-reference
	// MMD² under that metric's kernel: the first half of every chain's
	// draws against the second half (referenceFloor). The figures draw it
	// as the "reference floor"; an exact target has none.
	Floors map[string]float64 `json:"floors,omitempty"`
	// Predictions is the reference's convergence on the BNN's outputs at
	// the fmmd2 inputs (only where fmmd2 is evaluated).
	Predictions *PredictionDiag `json:"predictions,omitempty"`
}

// cellRef is what the reference-based metrics of a cell (mmd2, fmmd2)
// measure against: an exact Gaussian target with the bandwidth H of its
// exact MMD², or the experiment's reference draws Y (iteration-major over
// Chains chains) with Base, the description of them every summary
// carries (kind, draws, chains, the sampler's diagnostics).
type cellRef struct {
	Base   RefInfo
	Gauss  *target.Gaussian
	H      float64
	Y      *mat.Dense
	Chains int
}

// Keys of the cell's harness.Env.Memo: the reference, and what mmd2 and
// fmmd2 compute from it.
const (
	memoReference = "experiment.reference"
	memoMMD2      = "experiment.mmd2"
	memoFMMD2     = "experiment.fmmd2"
)

// cellRefOf returns the reference of the cell's metrics, loaded once per
// cell and shared through env.Memo by the metrics and the summary of the
// cell's method, whichever asks first. The reference is decoded afresh for
// each cell: its metrics may keep the matrix without a copy.
func cellRefOf(ctx context.Context, env *harness.Env, m Model) (*cellRef, error) {
	v, err := env.Memo(memoReference, func() (any, error) {
		if g, h := m.Exact(); g != nil {
			// An exact target is its own reference: MMD² in closed form.
			return &cellRef{Base: RefInfo{Kind: "exact", Bandwidth: h}, Gauss: g, H: h}, nil
		}
		set, summary, err := env.Reference(ctx)
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		chains := refChains(summary, set.Len())
		r := &cellRef{Base: RefInfo{Draws: set.Len(), Chains: chains}, Y: set.X, Chains: chains}
		if ref := env.Cell.Experiment.Reference; ref != nil {
			r.Base.Kind = ref.Kind
		}
		if len(summary) > 0 {
			var v any
			if json.Unmarshal(summary, &v) == nil {
				r.Base.Diagnostics = v
			}
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*cellRef), nil
}

// mmd2Part is mmd2's kernel against the reference draws: the RBF
// bandwidth, the median heuristic of the draws themselves (at most 1000
// rows spread over every chain), so that it depends only on the dataset
// split and the reference and every method of an experiment is measured
// with the same kernel; the within-reference floor; and the metric.
type mmd2Part struct {
	h     float64
	floor float64
	mmd   *metric.MMD
}

// mmd2Kernel returns mmd2's kernel of the cell's (non-exact) reference,
// computed once per cell (env.Memo).
func mmd2Kernel(ctx context.Context, env *harness.Env, m Model) (*mmd2Part, error) {
	v, err := env.Memo(memoMMD2, func() (any, error) {
		r, err := cellRefOf(ctx, env, m)
		if err != nil {
			return nil, err
		}
		h := chainBandwidth(r.Y, r.Chains)
		k := kernel.RBF{H: h}
		return &mmd2Part{h: h, floor: referenceFloor(k, r.Y, r.Chains), mmd: metric.NewMMD(k, r.Y)}, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*mmd2Part), nil
}

// fmmd2Of returns fmmd2's function-space MMD² against the cell's
// reference, computed once per cell (env.Memo): it needs a BNN with
// evaluation rows, at the first FunctionInputs of which the outputs are
// compared.
func fmmd2Of(ctx context.Context, env *harness.Env, m Model) (*functionMMD, error) {
	v, err := env.Memo(memoFMMD2, func() (any, error) {
		d := m.Network()
		if d == nil || d.XTest == nil {
			return nil, fmt.Errorf("%s needs a regression dataset (a BNN with evaluation rows), not %s", FMMD2, m.About().Name)
		}
		nt, dim := d.XTest.Dims()
		if nt == 0 {
			return nil, fmt.Errorf("%s: %s has no evaluation rows", FMMD2, d.Name)
		}
		X := d.XTest.Slice(0, min(FunctionInputs, nt), 0, dim).(*mat.Dense)
		r, err := cellRefOf(ctx, env, m)
		if err != nil {
			return nil, err
		}
		return newFunctionMMD(d.BNN, X, r.Y, r.Chains), nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*functionMMD), nil
}

// cellReference returns the reference information of the cell's summary
// when the cell evaluates mmd2 or fmmd2 (env.Metrics), nil otherwise (and
// for the run of a reference itself): the reference's description, with
// mmd2's bandwidth and floor and fmmd2's diagnostics and floor for those
// of the two the cell evaluates. It asks the same memoised values as the
// metrics do, so it depends neither on them having run nor on their order.
func cellReference(ctx context.Context, env *harness.Env, m Model) (*RefInfo, error) {
	if env == nil {
		return nil, nil
	}
	ms := env.Metrics()
	hasMMD2, hasFMMD2 := slices.Contains(ms, MMD2), slices.Contains(ms, FMMD2)
	if !hasMMD2 && !hasFMMD2 {
		return nil, nil
	}
	r, err := cellRefOf(ctx, env, m)
	if err != nil {
		return nil, err
	}
	info := r.Base
	if r.Gauss != nil {
		return &info, nil
	}
	if hasMMD2 {
		k, err := mmd2Kernel(ctx, env, m)
		if err != nil {
			return nil, err
		}
		info.Bandwidth = k.h
		setFloor(&info, MMD2, k.floor)
	}
	if hasFMMD2 {
		fm, err := fmmd2Of(ctx, env, m)
		if err != nil {
			return nil, err
		}
		diag := fm.diag
		info.Predictions = &diag
		setFloor(&info, FMMD2, fm.floor)
	}
	return &info, nil
}
