package mmdfw

import (
	"errors"
	"math"
	"slices"

	"github.com/mmdfw/mmdfw/pkg/dense"
)

// Rule selects how the weights change when a particle is added; the empty
// text is RuleAuto.
type Rule string

const (
	// RuleAuto is BQ when z is available (Inputs.Embed or a pool) and
	// Stein otherwise.
	RuleAuto Rule = ""
	// BQ is fully corrective Frank-Wolfe with Bayesian-quadrature weights:
	// (K + λI) w = z, re-solved over all particles at every step (an
	// incremental Cholesky factor makes it O(n²) per particle).
	BQ Rule = "bq"
	// LineSearch is the FW step ρ = ⟨μ̂ⁿ − μ_p, μ̂ⁿ − Φ(x')⟩/‖μ̂ⁿ − Φ(x')‖²
	// clipped to [0, 1].
	LineSearch Rule = "line-search"
	// Equal is the constant step ρₙ = 1/(n+1): equal weights (herding).
	Equal Rule = "equal"
	// Classic is the constant step ρₙ = 2/(n+2) of classical Frank-Wolfe.
	Classic Rule = "classic"
	// Schedule is the step ρₙ = c/(n+c), c = Settings.ScheduleC, which
	// shrinks the earlier weights polynomially: after N particles
	// wᵢ ∝ Γ(i+c−1)/Γ(i) ≈ i^(c−1). It is meant for non-MAP starts.
	Schedule Rule = "schedule"
	// Stein minimises the kernel Stein discrepancy wᵀK₀w over the simplex,
	// K₀ the Stein kernel matrix of the particles from their cached scores.
	// It needs no z.
	Stein Rule = "stein"
	// MMD minimises ‖μ̂ − μ_p‖² = wᵀKw − 2wᵀz + ∫∫k dp dp over the simplex:
	// fully corrective Frank-Wolfe on the convex hull of the particles'
	// features, where BQ corrects over their span. It needs z.
	MMD Rule = "mmd"
)

// String is the rule's text, "auto" for RuleAuto.
func (r Rule) String() string {
	if r == RuleAuto {
		return "auto"
	}
	return string(r)
}

func (r Rule) needsZ() bool { return r == BQ || r == LineSearch || r == MMD }

// simplex reports whether the rule's weights solve a quadratic program over
// the simplex (see WeightSolver).
func (r Rule) simplex() bool { return r == Stein || r == MMD }

// weights holds the Gram matrix, z, the Cholesky factor of K + λI and the
// Stein kernel matrix of the particles added so far, each grown by one
// row per particle and each only where the rule or the run's MMD² needs it.
type weights struct {
	rule   Rule
	cap    int
	n      int
	w      []float64 // len cap
	K      []float64 // cap×cap, full; with z only (needsGram)
	z      []float64 // len cap, when needed
	L      []float64 // cap×cap, lower Cholesky factor of K + λI (BQ)
	K0     []float64 // cap×cap, Stein kernel (Stein)
	lambda float64
	c      float64
	iters  int
	tmp    []float64 // scratch len cap
	tmp2   []float64 // scratch len cap
	tmp3   []float64 // scratch len cap
	// kg holds Qy and zero is zeros (Stein), len cap.
	kg, zero []float64
	// qp is the quadratic program of the simplex rules (Stein, MMD).
	qp qp
}

func newWeights(rule Rule, capacity int, withZ bool, lambda float64, c float64, iters int) *weights {
	w := &weights{
		rule: rule, cap: capacity, lambda: lambda, c: c, iters: iters,
		w:    make([]float64, capacity),
		tmp:  make([]float64, capacity),
		tmp2: make([]float64, capacity),
		tmp3: make([]float64, capacity),
	}
	// The Gram matrix serves z's rules (BQ, the line search) and the MMD²
	// of an embedding only: the other rules never read it.
	if withZ || rule.needsZ() {
		w.z = make([]float64, capacity)
		w.K = make([]float64, capacity*capacity)
	}
	if rule == BQ {
		w.L = make([]float64, capacity*capacity)
	}
	if rule == Stein {
		w.K0 = make([]float64, capacity*capacity)
		w.zero = make([]float64, capacity)
		w.qp.q, w.qp.nb = w.K0, w.zero
	}
	if rule == MMD {
		w.qp.q, w.qp.nb = w.K, make([]float64, capacity)
	}
	if rule.simplex() {
		w.kg = make([]float64, capacity)
	}
	return w
}

// usePairwise makes the simplex rules solve by pairwise Frank-Wolfe (see
// SolverPairwise) with relative gap tolerance tol and at most ceil
// iterations per solve; self is ∫∫k dp dp, the MMD rule's constant.
func (s *weights) usePairwise(tol float64, ceil int, self float64) {
	if !s.rule.simplex() {
		return
	}
	s.qp.pairwise, s.qp.tol, s.qp.ceil = true, tol, ceil
	s.qp.g = make([]float64, s.cap)
	s.qp.diag = make([]float64, s.cap)
	s.qp.sup = make([]int, 0, s.cap)
	s.qp.pos = make([]int32, s.cap)
	if s.rule == MMD {
		s.qp.c = self
	}
}

// needsGram reports whether add reads its Gram row: the rules of z and
// an embedding's MMD² use the Gram matrix, the others never do.
func (s *weights) needsGram() bool { return s.K != nil }

var errSingular = errors.New("the Gram matrix is numerically singular (raise Settings.Jitter)")

// add appends a particle with Gram row krow (k(x', xᵢ) for i < n, then
// k(x', x'); read only when the Gram matrix is kept, see needsGram),
// embedding value z (ignored unless needed) and Stein kernel row k0row
// (Stein only; same layout) and updates the weights by the rule.
func (s *weights) add(krow []float64, z float64, k0row []float64) error {
	n := s.n
	c := s.cap
	if s.K != nil {
		for i := 0; i <= n; i++ {
			s.K[n*c+i] = krow[i]
			s.K[i*c+n] = krow[i]
		}
		s.z[n] = z
		if s.rule == MMD {
			s.qp.nb[n] = -z
		}
	}
	if s.K0 != nil {
		for i := 0; i <= n; i++ {
			s.K0[n*c+i] = k0row[i]
			s.K0[i*c+n] = k0row[i]
		}
	}
	s.n = n + 1
	if s.qp.pairwise {
		s.pairwiseAdd()
		return nil
	}
	if n == 0 {
		s.w[0] = 1
		if s.rule == BQ {
			if err := s.cholAdd(); err != nil {
				return err
			}
			return s.bqSolve()
		}
		return nil
	}
	switch s.rule {
	case BQ:
		if err := s.cholAdd(); err != nil {
			return err
		}
		return s.bqSolve()
	case LineSearch:
		s.fwStep(s.lineSearch())
	case Equal:
		s.fwStep(1 / float64(n+1))
	case Classic:
		s.fwStep(2 / float64(n+2))
	case Schedule:
		s.fwStep(s.c / (float64(n) + s.c))
	case Stein, MMD:
		s.fwStep(1 / float64(n+1)) // warm start
		s.fistaSolve()
	default:
		panic("mmdfw: unknown weight rule")
	}
	return nil
}

// fwStep sets wᵢ ← (1−ρ) wᵢ for the old particles and w_new = ρ.
func (s *weights) fwStep(rho float64) {
	n := s.n - 1
	for i := 0; i < n; i++ {
		s.w[i] *= 1 - rho
	}
	s.w[n] = rho
}

// lineSearch returns ρ for the newest particle x' = x_{n}:
// ⟨μ̂ − μ_p, μ̂ − Φ(x')⟩ / ‖μ̂ − Φ(x')‖² with μ̂ over the old particles.
func (s *weights) lineSearch() float64 {
	n := s.n - 1
	c := s.cap
	var wKw, wk, wz float64
	for i := 0; i < n; i++ {
		var r float64
		for j := 0; j < n; j++ {
			r += s.K[i*c+j] * s.w[j]
		}
		wKw += s.w[i] * r
		wk += s.w[i] * s.K[n*c+i]
		wz += s.w[i] * s.z[i]
	}
	num := wKw - wk - wz + s.z[n]
	den := wKw - 2*wk + s.K[n*c+n]
	if den <= 0 {
		return 0
	}
	return math.Min(1, math.Max(0, num/den))
}

// cholAdd extends the lower Cholesky factor of K + λI by the newest row.
func (s *weights) cholAdd() error {
	n := s.n - 1
	c := s.cap
	row := s.L[n*c : n*c+n+1]
	// Solve L l = k by forward substitution.
	for i := 0; i < n; i++ {
		v := s.K[n*c+i]
		li := s.L[i*c : i*c+i]
		for j, l := range li {
			v -= l * row[j]
		}
		row[i] = v / s.L[i*c+i]
	}
	d := s.K[n*c+n] + s.lambda
	for _, l := range row[:n] {
		d -= l * l
	}
	if d < s.lambda {
		// Exactly d ≥ λ; only round-off brings it lower.
		d = s.lambda
	}
	if !(d > 0) {
		return errSingular
	}
	row[n] = math.Sqrt(d)
	return nil
}

// bqSolve solves (K + λI) w = z from the Cholesky factor.
func (s *weights) bqSolve() error {
	n := s.n
	c := s.cap
	y := s.tmp[:n]
	for i := 0; i < n; i++ {
		v := s.z[i]
		for j := 0; j < i; j++ {
			v -= s.L[i*c+j] * y[j]
		}
		y[i] = v / s.L[i*c+i]
	}
	w := s.w[:n]
	for i := n - 1; i >= 0; i-- {
		v := y[i]
		for j := i + 1; j < n; j++ {
			v -= s.L[j*c+i] * w[j]
		}
		w[i] = v / s.L[i*c+i]
	}
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errSingular
		}
	}
	return nil
}

// fistaBound returns the Gershgorin bound maxᵢ 2Σⱼ|Qᵢⱼ| on the largest
// eigenvalue of 2Q over the current particles (Q = K₀ or K).
func (s *weights) fistaBound() float64 {
	n, c := s.n, s.cap
	var L float64
	for i := 0; i < n; i++ {
		var r float64
		for _, v := range s.qp.q[i*c : i*c+n] {
			r += math.Abs(v)
		}
		L = math.Max(L, 2*r)
	}
	return L
}

// fistaSolve minimises wᵀQw − 2bᵀw over the simplex (Q = K₀ and b = 0
// for Stein, Q = K and b = z for MMD) by SteinIterations iterations of
// accelerated projected gradient (FISTA) from the current weights, with
// step 1/L and L the Gershgorin bound on the largest eigenvalue of 2Q.
func (s *weights) fistaSolve() {
	n := s.n
	c := s.cap
	L := s.fistaBound()
	if !(L > 0) {
		return
	}
	w := s.w[:n]
	y := s.tmp[:n]
	prev := s.tmp2[:n]
	g, nb := s.kg[:n], s.qp.nb[:n]
	copy(y, w)
	t := 1.0
	for it := 0; it < s.iters; it++ {
		copy(prev, w)
		// w = Π(y − ∇f(y)/L), ∇f(y) = 2(Qy − b): Q is stored symmetric,
		// so Qy = Qᵀy, each row's sum in serial order over j.
		mulSparse(g, nb, s.qp.q, c, y)
		// A lower bound of the projection's threshold from the support of
		// the previous iterate (prev, on the simplex): the values below
		// it can be left out of the sort.
		var sum float64
		var k int
		for i, gi := range g {
			w[i] = y[i] - 2*gi/L
			if prev[i] > 0 {
				sum += w[i]
				k++
			}
		}
		projectSimplexAbove(w, s.tmp3[:n], (sum-1)/float64(max(k, 1)))
		tn := (1 + math.Sqrt(1+4*t*t)) / 2
		beta := (t - 1) / tn
		t = tn
		for i := range y {
			y[i] = w[i] + beta*(w[i]-prev[i])
		}
	}
}

// mulSparse sets g = b + Kᵀy for the n×n block of K (stride c, n =
// len(y)), skipping the rows j with yⱼ = 0: dense.AddMulTrans over each run
// of consecutive nonzero yⱼ, each run continuing the sums of the one before.
// Every gₖ is b[k] plus the terms yⱼKⱼₖ in increasing j, rounded then added
// as in one AddMulTrans over all rows; a skipped term is ±0, which leaves
// a sum begun at +0 unchanged, so for finite K the bits are those of the
// full product. Stein weights on the simplex are sparse (a third of the
// particles keep weight at N = 400 on a network), so this saves most of
// the product.
func mulSparse(g, b, K []float64, c int, y []float64) {
	src, summed := b, false
	n := len(y)
	for j := 0; j < n; {
		if y[j] == 0 {
			j++
			continue
		}
		e := j + 1
		for e < n && y[e] != 0 {
			e++
		}
		dense.AddMulTrans(g, src, K[j*c:], c, y[j:e])
		src, summed = g, true
		j = e
	}
	if !summed {
		copy(g, b[:len(g)])
	}
}

// projectSimplex replaces v by its Euclidean projection onto the
// probability simplex (Held, Wolfe & Crowder; sort-based). scratch has
// len(v).
func projectSimplex(v, scratch []float64) {
	projectSimplexAbove(v, scratch, math.Inf(-1))
}

// projectSimplexAbove is projectSimplex given a lower bound of its
// threshold θ: for any set A of the entries, (Σ_A vᵢ − 1)/|A| ≤ θ =
// maxₖ (Sₖ − 1)/k (Sₖ the sum of the k largest), and entries at or below
// θ are 0 in the projection, so only the entries above the bound (less a
// margin of 10⁻⁹ far above rounding) are sorted. The threshold is summed
// over the same entries in the same order as by a full sort, so the result
// has the same bits.
func projectSimplexAbove(v, scratch []float64, lower float64) {
	lower -= 1e-9 * (1 + math.Abs(lower))
	u := scratch[:0]
	for _, x := range v {
		if x > lower {
			u = append(u, x)
		}
	}
	if len(u) == 0 { // a NaN bound or a bound above every entry
		u = append(u, v...)
	}
	slices.Sort(u)
	var cum, theta float64
	for i := len(u) - 1; i >= 0; i-- {
		cum += u[i]
		t := (cum - 1) / float64(len(u)-i)
		if i == 0 || u[i-1] <= t {
			theta = t
			break
		}
	}
	for i, x := range v {
		v[i] = math.Max(0, x-theta)
	}
}

// quadratic returns vᵀKv − 2vᵀz + self for weights v of the current
// particles (needs z): ‖μ̂ − μ_p‖² of the weights v.
func (s *weights) quadratic(v []float64, self float64) float64 {
	c := s.cap
	var vKv, vz float64
	for i, vi := range v {
		var r float64
		for j, vj := range v {
			r += s.K[i*c+j] * vj
		}
		vKv += vi * r
		vz += vi * s.z[i]
	}
	return vKv - 2*vz + self
}

// mmd2 returns ½‖μ̂ − μ_p‖² = ½wᵀKw − wᵀz + ½ self for the current weights
// (needs z).
func (s *weights) mmd2(self float64) float64 {
	n := s.n
	c := s.cap
	var wKw, wz float64
	for i := 0; i < n; i++ {
		var r float64
		for j := 0; j < n; j++ {
			r += s.K[i*c+j] * s.w[j]
		}
		wKw += s.w[i] * r
		wz += s.w[i] * s.z[i]
	}
	return 0.5*wKw - wz + 0.5*self
}
