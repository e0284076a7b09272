package mmdfw

import (
	"fmt"
	"math"

	"github.com/mmdfw/mmdfw/pkg/dense"
	"github.com/mmdfw/mmdfw/pkg/setting"
)

// WeightSolver selects the algorithm that solves the weight rules whose
// weights minimise a quadratic form over the probability simplex Δₙ = {w ≥ 0,
// Σwᵢ = 1}, after each added particle:
//
//	Stein:  F(w) = wᵀK₀w,                      K₀ the Stein kernel matrix,
//	MMD:    F(w) = wᵀKw − 2wᵀz + ∫∫k dp dp,    K the Gram matrix,
//
// both squared norms (KSD² and ‖μ̂ − μ_p‖²), so F ≥ 0.
//
// The empty text is SolverAuto.
type WeightSolver string

const (
	// SolverAuto is SolverPairwise.
	SolverAuto WeightSolver = ""
	// SolverFISTA runs Settings.SteinIterations iterations of accelerated
	// projected gradient (FISTA, step 1/L, L the Gershgorin bound on the
	// largest eigenvalue of the Hessian 2Q) from the previous weights scaled
	// by n/(n+1) and the new particle's weight 1/(n+1). Each iteration
	// multiplies Q by the extrapolated point, O(n·s) for s nonzero entries,
	// and sorts the entries that can be in the support. It does not test
	// convergence. It was the only solver before SolverPairwise, and the
	// experiment harness keeps it when an experiment file names no solver.
	SolverFISTA WeightSolver = "fista"
	// SolverPairwise runs pairwise Frank-Wolfe (Lacoste-Julien & Jaggi,
	// 2015) from the previous weights. It keeps the gradient g = Qw − b
	// (b = 0 or z), to which a new particle adds one entry, gₙ = Σⱼ Qₙⱼwⱼ −
	// bₙ at weight 0; first a Frank-Wolfe step with the exact line search
	// moves mass from all the old particles to the new one, then each
	// iteration takes the vertex s = argminᵢ gᵢ and moves mass, by the
	// exact line search, from the support vertex a that lowers F the most
	// (the second-order choice of SMO's working set, Fan, Chen & Lin 2005,
	// which includes plain pairwise Frank-Wolfe's argmax of g over the
	// support) to s; g changes by γ(Qₛ· − Qₐ·): O(n) per iteration. It
	// stops when the Frank-Wolfe gap
	//
	//	G(w) = ∇F(w)ᵀ(w − e_s) = 2(wᵀg − g_s) ≥ F(w) − min_Δ F
	//
	// or, since min F ≥ 0, F(w) itself is at most Settings.WeightTol·F(w) +
	// 64u·(maxᵢⱼ |Qᵢⱼ| + |c|), u = 2⁻⁵³ and c the constant term: then F(w) ≤
	// min F/(1 − WeightTol), a relative suboptimality certified by the
	// gap, unless min F is itself at the round-off of the gradient (the
	// second term; where min F = 0 the gap shrinks only like √F, and F
	// is the certificate). The test allows for a bound on the round-off
	// the in-place updates have added to g, and recomputes g from Q
	// (O(n·s), s nonzero weights) when only that bound stands in the way
	// (and the gap is below half the allowance). After
	// Settings.WeightIterations iterations without the certificate the
	// solve stops and says so (Result.WeightSolve, a "ceiling" flag of the
	// set's diagnostics). Problems of deficient rank whose minimum is 0
	// (random features with more particles than features, the target's
	// embedding in their hull) converge slowly and may reach the ceiling;
	// dense optima (every weight moving a little with each particle) take
	// about n iterations per solve.
	SolverPairwise WeightSolver = "pairwise"
)

// Defaults of the pairwise weight solver (docs/DECISIONS.md, "The weight
// solver").
const (
	DefaultWeightTol  = 1e-4
	DefaultWeightIter = 10000
)

// WeightStats describes the weight solves of a run with SolverPairwise
// (zero otherwise).
type WeightStats struct {
	// Solves counts the solves, one per particle after the first.
	Solves int
	// Iterations is the total of pairwise steps, MaxIterations the most
	// one solve took, and Refreshes the gradients recomputed from Q.
	Iterations    int64
	MaxIterations int
	Refreshes     int64
	// NotConverged counts the solves stopped by Settings.WeightIterations
	// with the gap above the tolerance; FirstNotConverged is the particle
	// count after the first of them (0 if none).
	NotConverged      int
	FirstNotConverged int
	// WorstGap is the largest relative bound min(G(w), F(w))/max(F(w),
	// floor) on the suboptimality at the end of a solve, floor the
	// round-off allowance of SolverPairwise.
	WorstGap float64
}

// qp is the simplex-constrained quadratic program of a weight rule,
// min wᵀQw − 2bᵀw + c over the simplex, on the leading n×n block of the
// rule's stored matrix, with the state of its pairwise Frank-Wolfe solver.
type qp struct {
	q  []float64 // cap×cap, symmetric: K₀ (Stein) or K (MMD)
	nb []float64 // −b, len cap: zeros (Stein) or −z (MMD)
	c  float64   // the constant: 0 (Stein) or ∫∫k dp dp (MMD)

	pairwise bool
	tol      float64
	ceil     int
	g        []float64 // Qw − b, len cap, updated in place (pairwise)
	diag     []float64 // Qᵢᵢ, len cap (pairwise)
	// sup lists the particles of nonzero weight (in no order) and pos
	// their places in it (−1 for the others), len cap (pairwise).
	sup []int
	pos []int32
	// maxAbs is the largest |Qᵢⱼ| and |bᵢ| over the particles so far, and
	// drift a bound on maxᵢ |gᵢ − (Qw − b)ᵢ|, the round-off that the
	// in-place updates of w and g have added since g was last recomputed
	// from Q.
	maxAbs, drift float64
	stats         WeightStats
}

// pairwiseAdd takes the newest particle into the pairwise solver: its
// entry of the gradient, gₙ = Σⱼ Qₙⱼwⱼ − bₙ at weight 0 (the old entries
// do not change), a Frank-Wolfe step towards it with the exact line search,
// then the solve.
func (s *weights) pairwiseAdd() {
	n := s.n - 1
	c := s.cap
	p := &s.qp
	row := p.q[n*c : n*c+n+1]
	p.maxAbs = math.Max(p.maxAbs, math.Abs(p.nb[n]))
	for _, v := range row {
		p.maxAbs = math.Max(p.maxAbs, math.Abs(v))
	}
	p.diag[n] = row[n]
	w := s.w[:n+1]
	p.pos[n] = -1
	if n == 0 {
		w[0] = 1
		p.g[0] = row[0] + p.nb[0]
		p.enter(0)
		return
	}
	w[n] = 0
	v := p.nb[n]
	for j, qj := range row[:n] {
		v += qj * w[j]
	}
	p.g[n] = v
	s.towardsNewest()
	s.pairwiseSolve()
}

// towardsNewest is the Frank-Wolfe step w ← (1−γ)w + γeₙ towards the
// newest particle n with the exact line search: along d = eₙ − w the
// slope of F is 2(gₙ − wᵀg) and the curvature 2dᵀQd = 2(Qₙₙ − 2(Qw)ₙ +
// wᵀQw), so γ = (wᵀg − gₙ)/dᵀQd clipped to [0, 1]; g becomes (1−γ)g +
// γ(Qₙ· − b).
func (s *weights) towardsNewest() {
	n, c := s.n-1, s.cap
	p := &s.qp
	w, g, nb := s.w[:n+1], p.g[:n+1], p.nb[:n+1]
	var wg, wb, gabs float64
	for i, wi := range w {
		wg += wi * g[i]
		wb -= wi * nb[i]
		gabs = math.Max(gabs, math.Abs(g[i]))
	}
	// (Qw)ₙ = gₙ + bₙ and wᵀQw = wᵀg + bᵀw.
	kappa := p.diag[n] - 2*(g[n]-nb[n]) + wg + wb
	if !(kappa > 0) || !(g[n] < wg) {
		return
	}
	gamma := math.Min(1, (wg-g[n])/kappa)
	qn := p.q[n*c : n*c+n+1]
	for i := range w {
		w[i] *= 1 - gamma
		g[i] = (1-gamma)*g[i] + gamma*(qn[i]+nb[i])
	}
	w[n] += gamma
	// The support: the new particle joins; the old ones stay unless γ = 1
	// (or a weight underflowed).
	for k := len(p.sup) - 1; k >= 0; k-- {
		if i := p.sup[k]; w[i] == 0 {
			p.leave(i)
		}
	}
	p.enter(n)
	// Each gᵢ: three roundings of terms below gabs + 2·maxAbs; each wᵢ one
	// relative rounding, which moves Qw by at most u·maxAbs.
	p.drift += eps * (4*gabs + 7*p.maxAbs)
}

// eps is the unit round-off of float64, 2⁻⁵³.
const eps = 0x1p-53

// pairwiseSolve runs pairwise Frank-Wolfe on the current particles until
// the certified gap meets the tolerance or the iteration ceiling is hit
// (see SolverPairwise), and records the solve in the statistics.
//
// Each iteration takes the Frank-Wolfe vertex s = argminᵢ gᵢ and, of the
// support vertices a with gₐ > gₛ, the one whose move to s by the exact
// line search γ = min(wₐ, (gₐ − gₛ)/κ), κ = Qₛₛ + Qₐₐ − 2Qₛₐ, lowers F the
// most (the second-order choice of SMO's working set, Fan, Chen & Lin
// 2005): γ(2(gₐ − gₛ) − γκ). The away vertex argmax_{wₐ>0} gₐ of plain
// pairwise Frank-Wolfe is among the candidates, so every step lowers F at
// least as much as its step would, and its convergence guarantees hold.
//
// With gap and F from the g updated in place and δ = p.drift the bound on
// its round-off, the true gap is at most gap + 4δ and F within δ: the solve
// stops when min(gap, F) + 4δ ≤ tol·(F − δ) + floor, floor = 64u(maxᵢⱼ|Qᵢⱼ| +
// |c|) (u = 2⁻⁵³) for the round-off of g itself. When only the drift stands
// in the way, g is recomputed from Q (δ = 0).
func (s *weights) pairwiseSolve() {
	n, c := s.n, s.cap
	p := &s.qp
	w, g, nb, diag := s.w[:n], p.g[:n], p.nb[:n], p.diag[:n]
	floor := 64 * eps * (p.maxAbs + math.Abs(p.c))
	it := 0
	var gap, F float64
	var done bool
	// The Frank-Wolfe vertex and the range of g, from a pass over g here
	// and after a recomputation, else from the update of the step before.
	si, gmin, gtop := argmin(g)
	for {
		// One pass over the support: wᵀg, bᵀw and the support vertex
		// whose move to s lowers F the most, by the decrease
		// γ(2(gᵢ − gₛ) − γk) at γ = min(wᵢ, (gᵢ − gₛ)/k) (vectorised,
		// with the serial loop's bits).
		qs := p.q[si*c : si*c+n]
		qss := qs[si]
		wg, wb, ai, _ := dense.AwayScan(p.sup, w, g, nb, diag, qs, gmin, qss)
		gabs := max(-gmin, gtop)
		F = wg - wb + p.c
		gap = 2 * (wg - gmin)
		// F − min F ≤ min(G, F), since min F ≥ 0.
		ub := math.Min(gap, F)
		allow := p.tol*math.Max(F-p.drift, 0) + floor
		if ub+4*p.drift <= allow {
			done = true
			break
		}
		if (ub <= allow/2 || ai < 0) && p.drift > 0 {
			// Only the drift stands in the way (or no support vertex is
			// above gₛ, gap ≤ 0 up to round-off): recompute g. At half
			// the allowance, so that the recomputed g passes and a solve
			// whose gap hovers at the allowance does not recompute g at
			// every iteration.
			s.pairwiseRefresh()
			si, gmin, gtop = argmin(g)
			continue
		}
		if it == p.ceil || ai < 0 {
			break
		}
		it++
		dg := g[ai] - gmin
		k := diag[ai] + qss - 2*qs[ai]
		wa := w[ai]
		gamma := wa
		if k > 0 && dg < wa*k {
			gamma = dg / k
			w[ai] -= gamma
		} else {
			w[ai] = 0
			p.leave(ai)
		}
		if w[si] == 0 {
			p.enter(si)
		}
		w[si] += gamma
		// Each gⱼ: the difference, the product and the sum rounded, each
		// below u(gabs + 2γ·maxAbs); the two weights' roundings move Qw by
		// at most u·maxAbs·(wₐ + wₛ).
		p.drift += eps * (6*gamma*p.maxAbs + 2*gabs + p.maxAbs*(wa+w[si]))
		// The update of g, with the next iteration's vertex and range
		// (the first smallest gⱼ; vectorised, with the serial loop's bits).
		qa := p.q[ai*c : ai*c+n]
		si, gmin, _, gtop = dense.AddScaledDiffArgmin(g, qs, qa, gamma)
	}
	st := &p.stats
	st.Solves++
	st.Iterations += int64(it)
	st.MaxIterations = max(st.MaxIterations, it)
	rel := 0.0
	if ub := math.Min(gap, F); ub > 0 {
		rel = ub / math.Max(F, floor)
	}
	if !done {
		st.NotConverged++
		if st.FirstNotConverged == 0 {
			st.FirstNotConverged = n
		}
	}
	st.WorstGap = math.Max(st.WorstGap, rel)
}

// argmin returns the index and value of the smallest entry of g (the first
// of equals) and the largest value.
func argmin(g []float64) (int, float64, float64) {
	si, gmin, gtop := 0, g[0], g[0]
	for i, v := range g {
		if v < gmin {
			gmin, si = v, i
		}
		if v > gtop {
			gtop = v
		}
	}
	return si, gmin, gtop
}

// enter adds particle i to the support list; leave removes it.
func (p *qp) enter(i int) {
	p.pos[i] = int32(len(p.sup))
	p.sup = append(p.sup, i)
}

func (p *qp) leave(i int) {
	j := p.pos[i]
	last := p.sup[len(p.sup)-1]
	p.sup[j] = last
	p.pos[last] = j
	p.sup = p.sup[:len(p.sup)-1]
	p.pos[i] = -1
}

// pairwiseRefresh rescales the weights to sum to one (undoing the drift of
// the in-place updates) and recomputes g = Qw − b from Q over the support.
func (s *weights) pairwiseRefresh() {
	n := s.n
	p := &s.qp
	w := s.w[:n]
	var sum float64
	for _, v := range w {
		sum += v
	}
	for i := range w {
		w[i] /= sum
	}
	mulSparse(p.g[:n], p.nb, p.q, s.cap, w)
	p.drift = 0
	p.stats.Refreshes++
}

// notConverged returns an error describing the solves that stopped at the
// iteration ceiling, nil when there were none.
func (st WeightStats) notConverged(tol float64, ceil int) error {
	if st.NotConverged == 0 {
		return nil
	}
	return fmt.Errorf("weight solve did not converge in %d of %d solves (first after %d particles): "+
		"relative gap up to %.3g > weight_tol %g after weight_iterations = %d",
		st.NotConverged, st.Solves, st.FirstNotConverged, st.WorstGap, tol, ceil)
}

// validateSolver refuses a solver's settings given to the other solver and
// a tolerance that certifies nothing.
func (s Settings) validateSolver() error {
	if err := setting.OneOf("weight_solver", s.WeightSolver, solverValues...); err != nil {
		return err
	}
	if math.IsNaN(s.WeightTol) || s.WeightTol >= 1 {
		return setting.Errorf("weight_tol", s.WeightTol, "must be below 1 (a relative gap)")
	}
	if s.WeightSolver == SolverFISTA && (s.WeightTol != 0 || s.WeightIterations != 0) {
		return setting.Errorf("weight_solver", s.WeightSolver, `weight_tol and weight_iterations are the "pairwise" solver's`)
	}
	if s.WeightSolver != SolverFISTA && s.SteinIterations != 0 {
		return setting.Errorf("stein_iterations", s.SteinIterations, `is the "fista" solver's (weight_solver = "fista")`)
	}
	return nil
}

// solverDefaults resolves SolverAuto and the pairwise solver's zero
// settings.
func (s *Settings) solverDefaults() {
	if s.WeightSolver == SolverAuto {
		s.WeightSolver = SolverPairwise
	}
	if s.WeightSolver == SolverPairwise {
		if s.WeightTol == 0 {
			s.WeightTol = DefaultWeightTol
		}
		if s.WeightIterations == 0 {
			s.WeightIterations = DefaultWeightIter
		}
	}
}

// weightStats copies the pairwise solver's statistics into the result and
// records them in the set's diagnostics: the solves and the worst relative
// gap as values, and a "weights" flag when a solve stopped at its iteration ceiling.
func (r *run) weightStats(res *Result) {
	if r.wt == nil || !r.wt.qp.pairwise {
		return
	}
	st := r.wt.qp.stats
	res.WeightSolve = st
	d := &res.Set.Diag
	d.Set("weight_solves", float64(st.Solves))
	d.Set("weight_gap_max", st.WorstGap)
	d.Set("weight_not_converged", float64(st.NotConverged))
	if err := st.notConverged(r.s.WeightTol, r.s.WeightIterations); err != nil {
		d.Raise("weights", "%v", err)
	}
}
