package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/harness"
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

	test, dev *Predictive
}

// NewBNNData returns the network m with its training rows (Xtr, ytr
// standardised), the evaluation rows X with responses y on the original
// scale, the development rows XDev with yDev (nil for none), and the
// training mean and standard deviation of y.
func NewBNNData(info Info, m *model.BNN, Xtr *mat.Dense, ytr []float64, X *mat.Dense, y []float64, XDev *mat.Dense, yDev []float64, yMean, ySD float64) *BNNData {
	d := &BNNData{Info: info, BNN: m, XTrain: Xtr, YTrain: ytr, YMean: yMean, YSD: ySD}
	pred := func(x *mat.Dense, y []float64) *Predictive {
		return &Predictive{names: [2]string{RMSE, TestLL}, rows: x, eval: func(X *mat.Dense, w []float64) (float64, float64) {
			return m.Metrics(x, y, X, w, yMean, ySD)
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
	Kind      string  `json:"kind"`
	Draws     int     `json:"draws"`
	Bandwidth float64 `json:"bandwidth"`
	// Diagnostics is the reference method's own summary (for HMC: max R̂,
	// min ESS, flagged, reasons, per-chain acceptance, divergences, step
	// size).
	Diagnostics any `json:"diagnostics,omitempty"`
}

// mmd2Ref is what the mmd2 metric of a cell measures against: the exact
// embedding of a Gaussian target, or the experiment's reference draws Y
// under the RBF kernel of bandwidth Info.Bandwidth.
type mmd2Ref struct {
	Info  RefInfo
	Gauss *target.Gaussian
	Y     *mat.Dense
}

// mmd2RefKey is the key of mmd2Ref in the cell's harness.Env.Memo.
const mmd2RefKey = "experiment.mmd2-reference"

// mmd2Reference returns the reference of the cell's mmd2 metric, computed
// once per cell and shared through env.Memo by the metric and the summary
// of the cell's method, whichever asks first. The RBF bandwidth is the
// median heuristic of the reference draws themselves, so it depends only on
// the dataset split and the reference: every method of an experiment is
// measured with the same kernel.
func mmd2Reference(ctx context.Context, env *harness.Env, m Model) (*mmd2Ref, error) {
	v, err := env.Memo(mmd2RefKey, func() (any, error) {
		if g, h := m.Exact(); g != nil {
			// An exact target is its own reference: MMD² in closed form.
			return &mmd2Ref{Info: RefInfo{Kind: "exact", Bandwidth: h}, Gauss: g}, nil
		}
		set, summary, err := env.Reference(ctx)
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		// The reference is decoded afresh for each caller: the metric may
		// keep its matrix without a copy.
		r := &mmd2Ref{Info: RefInfo{Draws: set.Len(), Bandwidth: medianBandwidth(set.X)}, Y: set.X}
		if ref := env.Cell.Experiment.Reference; ref != nil {
			r.Info.Kind = ref.Kind
		}
		if len(summary) > 0 {
			var v any
			if json.Unmarshal(summary, &v) == nil {
				r.Info.Diagnostics = v
			}
		}
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*mmd2Ref), nil
}

// cellReference returns the reference information of the cell's summary:
// that of its mmd2 metric when the cell evaluates one (env.Metrics), nil
// otherwise (and for the run of a reference itself).
func cellReference(ctx context.Context, env *harness.Env, m Model) (*RefInfo, error) {
	if env == nil || !slices.Contains(env.Metrics(), MMD2) {
		return nil, nil
	}
	r, err := mmd2Reference(ctx, env, m)
	if err != nil {
		return nil, err
	}
	return &r.Info, nil
}
