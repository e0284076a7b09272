// Package pdbcheck runs the module's samplers on posteriordb's posteriors
// (pkg/posteriordb, pkg/pdbmodel) and compares their draws with the
// reference draws: the validation of the HMC reference sampler against
// posteriordb, and the table of every method from its zero settings.
//
// # The HMC check
//
// RunHMC runs pkg/hmc (Settings as given; the zero value is the project's
// default: 4 chains, 1000 warm-up iterations and 1000 draws each) on the
// unconstrained target of a posterior, chains started around the model's
// Init point, maps every draw through Constrain to the reference's names and
// compares, per parameter j,
//
//	z_j = |x̄_j − m_j| / √(MCSE_j² + MCSE'_j²),   r_j = σ̂_j / s_j,
//
// m_j, s_j and MCSE_j the reference's mean, sd and Monte Carlo standard error
// (s_j/√ESS_j with the raw ESS of its ten chains, Stan's mcse_mean; see
// posteriordb.Comparison) and x̄_j, σ̂_j, MCSE'_j the run's (MCSE' from the
// raw ESS of the HMC chains, constrained). The run passes when every z_j ≤
// MaxZ (4) and every r_j ∈ [MinSDRatio, MaxSDRatio] = [0.9, 1.1]: with the
// combined MCSE in the denominator, z_j is about |N(0, 1)| for an exact
// sampler, so 4 is itself the Monte Carlo tolerance (P(|z| > 4) = 6·10⁻⁵
// per parameter). The standard error of an sd ratio is about 1/√(2·ESS)
// for a near-Gaussian marginal: 0.035 at the smallest bulk ESS the check
// accepts (400), so that 1 ± 0.1 is about 3 standard errors there, and 6
// at the ESS of about 2,000 the default run reaches. The check (the
// package's tests) also asks that hmc.Run did not flag the run (max R̂ ≤
// 1.01, min bulk ESS ≥ 400, no divergence); HMCResult reports R̂ and ESS
// over the unconstrained coordinates and the reported parameters both.
//
// # The methods table
//
// RunMethod runs any sampler.Sampler on the unconstrained target with a
// fixed source and a per-run timeout, maps its weighted particles through
// Constrain and scores them with Comparison.Score: the largest mean error in
// reference sds, the sd ratios and the MMD² on standardised draws. Judge
// says whether a result keeps the contract of a method that never returns a
// silently wrong answer: close (mean error ≤ 0.5 sd and sd ratios in
// [0.5, 2]), or flagged, or an error.
package pdbcheck

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
	"github.com/mmdfw/mmdfw/pkg/posteriordb"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// The pass criterion of the HMC check.
const (
	// MaxZ bounds |Δ mean| / combined MCSE of every parameter.
	MaxZ = 4.0
	// MinSDRatio and MaxSDRatio bound every sd ratio.
	MinSDRatio = 0.9
	MaxSDRatio = 1.1
)

// The closeness of the methods' contract (Judge).
const (
	// CloseMeanErr bounds |Δ mean| / reference sd of every parameter.
	CloseMeanErr = 0.5
	// CloseSDLo and CloseSDHi bound every sd ratio.
	CloseSDLo = 0.5
	CloseSDHi = 2.0
)

// SharedRoot returns the staged posteriordb folder, shared/posteriordb
// beside the module's root (../shared/posteriordb from the repository),
// found by walking up from the working directory to go.mod. It returns an
// error saying what is missing when there is none.
func SharedRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(filepath.Dir(dir), "shared", "posteriordb")
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				return "", fmt.Errorf("pdbcheck: no staged posteriordb folder %s beside the module", p)
			}
			return p, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("pdbcheck: no module root (go.mod) above %s", wd)
		}
	}
}

// Posterior is a posteriordb posterior ready to be sampled and scored: its
// model bound to its data and its reference summarised.
type Posterior struct {
	// Name is the posterior's name, "<data>-<model>".
	Name string
	// Model is the model on the unconstrained space.
	Model *pdbmodel.Model
	// Reference is the reference draws.
	Reference *posteriordb.Reference
	// Cmp scores constrained draws against the reference.
	Cmp *posteriordb.Comparison

	// perm[j] is the column of Model.Names that is the reference's
	// parameter j.
	perm []int
}

// Load reads the posterior name of db, binds its model and summarises its
// reference with the compare settings cs.
func Load(db *posteriordb.DB, name string, cs posteriordb.CompareSettings) (*Posterior, error) {
	p, err := db.Load(name)
	if err != nil {
		return nil, err
	}
	if p.Reference == nil {
		return nil, fmt.Errorf("pdbcheck: posterior %s has no reference draws", name)
	}
	m, err := pdbmodel.New(p.ModelName, p.Data)
	if err != nil {
		return nil, fmt.Errorf("pdbcheck: posterior %s: %w", name, err)
	}
	return New(name, m, p.Reference, cs)
}

// New binds the model m to the reference draws ref of the posterior name,
// summarised with the compare settings cs. Every reference parameter must
// be one of the model's Names.
func New(name string, m *pdbmodel.Model, ref *posteriordb.Reference, cs posteriordb.CompareSettings) (*Posterior, error) {
	if len(m.Names) != len(ref.Names) {
		return nil, fmt.Errorf("pdbcheck: posterior %s: model reports %d parameters, reference %d", name, len(m.Names), len(ref.Names))
	}
	idx := make(map[string]int, len(m.Names))
	for i, n := range m.Names {
		idx[n] = i
	}
	perm := make([]int, len(ref.Names))
	for j, n := range ref.Names {
		i, ok := idx[n]
		if !ok {
			return nil, fmt.Errorf("pdbcheck: posterior %s: the model reports no parameter %q of the reference", name, n)
		}
		perm[j] = i
	}
	cmp, err := posteriordb.NewComparison(ref, cs)
	if err != nil {
		return nil, fmt.Errorf("pdbcheck: posterior %s: %w", name, err)
	}
	return &Posterior{Name: name, Model: m, Reference: ref, Cmp: cmp, perm: perm}, nil
}

// Dim returns the dimension of the unconstrained target.
func (p *Posterior) Dim() int { return p.Model.Target.Dim() }

// Constrain maps every row of the unconstrained X to the reference's
// parameters, in the order of Cmp.Names, into a new matrix. A non-finite
// constrained value (a transform that overflowed) is an error naming the
// row and parameter.
func (p *Posterior) Constrain(X *mat.Dense) (*mat.Dense, error) {
	n, d := X.Dims()
	if d != p.Dim() {
		return nil, fmt.Errorf("pdbcheck: %s: draws of dimension %d, want %d", p.Name, d, p.Dim())
	}
	k := len(p.perm)
	out := mat.NewDense(n, k, nil)
	buf := make([]float64, len(p.Model.Names))
	for i := 0; i < n; i++ {
		buf = p.Model.Constrain(buf, X.RawRowView(i))
		row := out.RawRowView(i)
		for j, c := range p.perm {
			v := buf[c]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("pdbcheck: %s: draw %d constrains to %s = %v", p.Name, i+1, p.Cmp.Names[j], v)
			}
			row[j] = v
		}
	}
	return out, nil
}

// ReferenceMean returns the reference's mean mapped to the unconstrained
// space (Model.Unconstrain of the mean of every reported parameter): a
// start inside the posterior's bulk.
func (p *Posterior) ReferenceMean() ([]float64, error) {
	c := make([]float64, len(p.Model.Names))
	for j, i := range p.perm {
		c[i] = p.Cmp.Mean[j]
	}
	u, err := p.Model.Unconstrain(nil, c)
	if err != nil {
		return nil, fmt.Errorf("pdbcheck: %s: the reference mean: %w", p.Name, err)
	}
	return u, nil
}

// seeds returns the two seeds of a posterior's run with the given seed: a
// hash of the posterior's name and the seed, for rand.NewPCG.
func (p *Posterior) seeds(seed uint64) (uint64, uint64) {
	h := fnv.New64a()
	h.Write([]byte(p.Name))
	return h.Sum64(), seed
}

// Init returns the model's starting point (Stan's: every unconstrained
// coordinate uniform on (−2, 2)) for the given seed.
func (p *Posterior) Init(seed uint64) []float64 {
	a, b := p.seeds(seed)
	x0 := make([]float64, p.Dim())
	p.Model.Init(rand.New(rand.NewPCG(a, b^0x1d17)), x0)
	return x0
}

// MAP returns the mode of the unconstrained target found by L-BFGS
// (laplace.FindMAP with its zero settings) from x0, with the gradient
// evaluations it spent.
func (p *Posterior) MAP(ctx context.Context, x0 []float64) ([]float64, int64, error) {
	r, err := laplace.FindMAP(ctx, p.Model.Target, x0, laplace.MAPSettings{})
	if err != nil {
		return nil, r.GradEvals, fmt.Errorf("pdbcheck: %s: MAP: %w", p.Name, err)
	}
	return r.X, r.GradEvals, nil
}

// HMCResult is one HMC run on a posterior, compared with the reference.
type HMCResult struct {
	// Name is the posterior's name and Names the reference's parameters,
	// the order of Errors and MCSE.
	Name  string
	Names []string
	// Errors holds the per-parameter moments and errors (MeanZ with both
	// MCSEs) and Summary their reduction.
	Errors  *posteriordb.Errors
	Summary posteriordb.Summary
	// MCSE is the run's own MCSE per parameter (from the raw ESS of its
	// constrained chains).
	MCSE []float64
	// MaxRhat and MinESS are the largest rank-normalised split-R̂ and the
	// smallest bulk ESS over the unconstrained coordinates and the
	// reference's parameters.
	MaxRhat, MinESS float64
	// Divergences counts the divergent sampling transitions of all chains.
	Divergences int
	// MinStep and MaxStep are the smallest and largest adapted step size
	// of the chains; MeanSteps the mean leapfrog steps per transition.
	MinStep, MaxStep, MeanSteps float64
	// Flagged and Reasons are hmc.Result's, and Chains its per-chain
	// diagnostics (step size, steps, acceptance, divergences).
	Flagged bool
	Reasons []string
	Chains  []hmc.ChainDiagnostics
	// Draws are the chains' draws, constrained (columns Names).
	Draws []*mat.Dense
	// GradEvals counts gradient evaluations (warm-up included) and
	// Seconds is the run's compute time.
	GradEvals int64
	Seconds   float64
}

// Pass reports whether every mean is within MaxZ combined MCSEs of the
// reference's and every sd ratio in [MinSDRatio, MaxSDRatio], and says
// why not.
func (r *HMCResult) Pass() (bool, string) {
	var why string
	for j, n := range r.Names {
		z, s := r.Errors.MeanZ[j], r.Errors.SDRatio[j]
		if !(z <= MaxZ) {
			why += fmt.Sprintf("; %s: |Δ mean| = %.3g combined MCSE > %g", n, z, MaxZ)
		}
		if !(s >= MinSDRatio && s <= MaxSDRatio) {
			why += fmt.Sprintf("; %s: sd ratio %.3f outside [%g, %g]", n, s, MinSDRatio, MaxSDRatio)
		}
	}
	if why == "" {
		return true, ""
	}
	return false, why[2:]
}

// RunHMC runs hmc.Run with s on the posterior's unconstrained target, the
// chains started around x0 (Init(seed) when nil), and compares the
// constrained draws with the reference.
func (p *Posterior) RunHMC(ctx context.Context, x0 []float64, s hmc.Settings, seed uint64) (*HMCResult, error) {
	if x0 == nil {
		x0 = p.Init(seed)
	}
	a, b := p.seeds(seed)
	hmcRes, err := hmc.Run(ctx, p.Model.Target, particle.Start{X0: x0}, s, rand.NewPCG(a, b), nil)
	res, _ := hmcRes.Detail.(*hmc.Result)
	if err != nil {
		return nil, fmt.Errorf("pdbcheck: %s: %w", p.Name, err)
	}
	chains := make([]*mat.Dense, len(res.Chains))
	for c, ch := range res.Chains {
		if chains[c], err = p.Constrain(ch); err != nil {
			return nil, err
		}
	}
	all, err := p.Constrain(res.Set.X)
	if err != nil {
		return nil, err
	}
	r := &HMCResult{Name: p.Name, MaxRhat: res.MaxRhat, MinESS: res.MinESS, Flagged: res.Flagged,
		Reasons: res.Reasons, Chains: res.Diagnostics, Draws: chains, GradEvals: res.GradEvals, Seconds: res.Seconds, Names: p.Cmp.Names,
		MinStep: math.Inf(1), MaxStep: math.Inf(-1)}
	for _, v := range metric.SplitRhat(chains, nil) {
		r.MaxRhat = nanMax(r.MaxRhat, v)
	}
	for _, v := range metric.BulkESS(chains, nil) {
		r.MinESS = nanMin(r.MinESS, v)
	}
	for _, d := range res.Diagnostics {
		r.Divergences += d.Divergences
		r.MinStep, r.MaxStep = math.Min(r.MinStep, d.StepSize), math.Max(r.MaxStep, d.StepSize)
		r.MeanSteps += d.MeanSteps / float64(len(res.Diagnostics))
	}
	r.MCSE = metric.MCSE(chains, nil)
	r.Errors = p.Cmp.Errors(nil, all, nil, posteriordb.Own{MCSE: r.MCSE})
	r.Summary = r.Errors.Summary()
	return r, nil
}

// Method is a sampler run from a start point in the unconstrained space.
type Method struct {
	// Name names the method in tables ("mmdfw", "svgd", "sp", "sgld", "hmc").
	Name string
	// Sampler is the method's settings (zero but for the particle count N
	// where the method takes one); RunMethod runs it from
	// particle.Start{X0: x0}.
	Sampler sampler.Sampler
}

// Start names a start point of the methods table.
type Start string

// The start points of the methods table.
const (
	// StartInit is the model's Init point (Stan's uniform on (−2, 2)ᵈ).
	StartInit Start = "init"
	// StartMAP is the mode of the unconstrained target found by L-BFGS
	// from the Init point (Posterior.MAP).
	StartMAP Start = "map"
)

// RunResult is one method run on a posterior, scored.
type RunResult struct {
	// Posterior, Method and Start name the run; Seed is its seed.
	Posterior, Method string
	Start             Start
	Seed              uint64
	// Err is the run's error (the timeout's included); Timeout reports
	// that the run's context expired.
	Err     error
	Timeout bool
	// Flagged and Reason are the returned set's Diag.Flagged() and
	// Diag.Reason().
	Flagged bool
	Reason  string
	// Errors and Summary score the constrained set (nil and zero after an
	// error or for a set that does not constrain to finite values).
	Errors  *posteriordb.Errors
	Summary posteriordb.Summary
	// Bad says why a set returned without an error could not be scored
	// (no particles, or a particle whose constrained value overflows): a
	// wrong answer unless flagged.
	Bad string
	// N is the number of particles returned.
	N int
	// GradEvals is the last snapshot's count (the MAP's not included) and
	// StartGradEvals the cost of the start point (the MAP search).
	GradEvals, StartGradEvals int64
	// Seconds is the wall time of the method's Run.
	Seconds float64
}

// Verdict is what a run says about its answer.
type Verdict string

// The verdicts of Judge.
const (
	// Close: no error, not flagged, within the closeness bounds.
	Close Verdict = "close"
	// FlaggedClose: within the bounds, yet flagged (a false alarm).
	FlaggedClose Verdict = "close, flagged"
	// Flagged: outside the bounds, and the set says so.
	Flagged Verdict = "flagged"
	// Errored: Run returned an error (not a timeout).
	Errored Verdict = "error"
	// TimedOut: the run's context expired.
	TimedOut Verdict = "timeout"
	// Wrong: outside the bounds, neither flagged nor an error: a silently
	// wrong answer.
	Wrong Verdict = "WRONG"
)

// Judge returns the verdict of r: an error or timeout, else close or not by
// CloseMeanErr, CloseSDLo and CloseSDHi, and flagged or not.
func (r *RunResult) Judge() Verdict {
	switch {
	case r.Timeout:
		return TimedOut
	case r.Err != nil:
		return Errored
	}
	s := r.Summary
	close := r.Errors != nil && s.MaxMeanErr <= CloseMeanErr && s.MinSDRatio >= CloseSDLo && s.MaxSDRatio <= CloseSDHi
	switch {
	case close && r.Flagged:
		return FlaggedClose
	case close:
		return Close
	case r.Flagged:
		return Flagged
	}
	return Wrong
}

// RunMethod runs m from x0 on the posterior's unconstrained target with
// the source of seed, bounded by timeout (none when 0), and scores the
// constrained set. Errors of the run are in the result, not returned.
func (p *Posterior) RunMethod(ctx context.Context, m Method, start Start, x0 []float64, seed uint64, timeout time.Duration) RunResult {
	r := RunResult{Posterior: p.Name, Method: m.Name, Start: start, Seed: seed}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		r.GradEvals = s.GradEvals
		return nil
	})
	a, b := p.seeds(seed)
	t0 := time.Now()
	set, err := m.Sampler.Run(ctx, p.Model.Target, particle.Start{X0: append([]float64(nil), x0...)}, rand.NewPCG(a, b), rec)
	r.Seconds = time.Since(t0).Seconds()
	if err != nil {
		r.Err = err
		r.Timeout = errors.Is(err, context.DeadlineExceeded)
		return r
	}
	r.Flagged, r.Reason = set.Diag.Flagged(), set.Diag.Reason()
	if set.X == nil || len(set.W) != set.Len() {
		r.Bad = "no particles, or not one weight per particle, without an error"
		return r
	}
	r.N = set.Len()
	X, err := p.Constrain(set.X)
	if err != nil {
		r.Bad = err.Error()
		return r
	}
	r.Errors = p.Cmp.Errors(nil, X, set.W, posteriordb.Own{})
	r.Summary = r.Errors.Summary()
	r.Summary.MMD2 = p.Cmp.MMD2(X, set.W)
	return r
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}

// Methods returns the module's methods in their zero settings with n
// particles where the method takes a count, each run from a start point x0
// (particle.Start{X0: x0}): MMD-FW (mmdfw.Settings{N}: its default start is
// the L-BFGS mode from x0), SVGD (svgd.Settings{N}: particles drawn around
// the MAP found from x0), Stein Points (sp.Settings{N}), SGLD
// (sgld.Settings{}: chains started around the MAP found from x0) and HMC
// (hmc.Settings{}: chains started around x0).
func Methods(n int) []Method {
	return []Method{
		{"mmdfw", mmdfw.Settings{N: n}},
		{"svgd", svgd.Settings{N: n}},
		{"sp", sp.Settings{N: n}},
		{"sgld", sgld.Settings{}},
		{"hmc", hmc.Settings{}},
	}
}
