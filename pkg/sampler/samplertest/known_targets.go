package samplertest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// KnownTarget is a target whose answer is known exactly: its means and
// variances, and where they say something more, correlations and the
// probability of a region (a mode's weight, a funnel's neck, a boundary
// layer). Each of these is a Check: the expectation E_p f of one function f
// under the target, with the standard deviation of f, from which the Monte
// Carlo error of n independent draws follows as SD/√n.
//
// A *KnownTarget is a target.Target and nothing more: it offers no prior,
// no minibatches and no batch form, so that a method meets it as it meets a
// user's plain target.Func. It is immutable and safe for concurrent use.
type KnownTarget struct {
	// Name is a short identifier ("gauss5", "banana", ...).
	Name string
	// About says in one line what the target is.
	About string
	// X0 is the start point handed to a method's zero settings: a point a
	// user could give, inside the support, not at the answer.
	X0 []float64
	// Mean and Var are the exact means and variances of the coordinates.
	Mean, Var []float64
	// Checks are the expectations a run is judged on (see Known).
	Checks []Check
	// In reports whether x lies in the support; nil means all of ℝᵈ.
	// Outside it, log p = −∞ and the score is zero.
	In func(x []float64) bool
	// ErrorOK says that an error is an acceptable answer of a method on
	// this target (a support with a boundary, a funnel's neck), where
	// giving up loudly is better than a wrong set.
	ErrorOK bool

	d    int
	f    func(x, grad []float64) float64
	draw func(rng *rand.Rand, dst []float64)
}

// CheckKind says what a Check measures, for the table.
type CheckKind int

const (
	// CheckMean is E xⱼ; F(x) = xⱼ, SD = σⱼ.
	CheckMean CheckKind = iota
	// CheckVar is the variance about the exact mean, E (xⱼ − mⱼ)² = σⱼ²;
	// SD = √(μ₄ⱼ − σⱼ⁴), μ₄ⱼ the fourth central moment.
	CheckVar
	// CheckCorr is the correlation E (xᵢ − mᵢ)(xⱼ − mⱼ)/(σᵢσⱼ) = ρᵢⱼ of a
	// Gaussian pair; SD = √(1 + ρᵢⱼ²).
	CheckCorr
	// CheckProb is the probability P(xⱼ < c) = p; F is the indicator,
	// SD = √(p(1 − p)).
	CheckProb
	// CheckSpread is the squared Mahalanobis distance of a Gaussian,
	// E (x − m)ᵀΣ⁻¹(x − m) = d, χ²_d: SD = √(2d). It sees in one number a
	// spread that is wrong in every direction, which the checks of single
	// variances, each with the Monte Carlo error of few draws, can miss in
	// high dimension.
	CheckSpread
)

// Check is one expectation E_p F(x) = Exact with SD² = Var_p F(x).
type Check struct {
	// Name says what is measured, e.g. "mean x1", "P(x1<0)".
	Name string
	// Kind says what F measures.
	Kind CheckKind
	// I and J are the coordinates (0 based) that F reads: I = J but for
	// CheckCorr (the pair) and CheckSpread (0 and d − 1: all of them).
	I, J int
	// F is the function whose expectation is checked.
	F func(x []float64) float64
	// Exact is E_p F and SD is √Var_p F.
	Exact, SD float64
}

// Dim returns the dimension.
func (k *KnownTarget) Dim() int { return k.d }

// LogProbGrad returns log p(x) up to a constant and writes its gradient
// into grad (−∞ and a zero gradient outside the support).
func (k *KnownTarget) LogProbGrad(x, grad []float64) float64 {
	if len(x) != k.d || len(grad) != k.d {
		panic(fmt.Sprintf("samplertest: %s of dimension %d given len(x) = %d, len(grad) = %d", k.Name, k.d, len(x), len(grad)))
	}
	return k.f(x, grad)
}

// Draw writes one exact, independent draw of the target into dst.
func (k *KnownTarget) Draw(rng *rand.Rand, dst []float64) {
	if len(dst) != k.d {
		panic("samplertest: dimension mismatch")
	}
	k.draw(rng, dst)
}

// Func returns the target as a plain target.Func.
func (k *KnownTarget) Func() target.Func { return target.Func{D: k.d, F: k.f} }

// KnownTargets returns the known targets, in a fixed order:
//
//	gauss5    N(m, Σ) in d = 5, m = (1, −1, 2, 0, 0.5), σ = (1, 2, 0.5, 1, 3),
//	          Σᵢⱼ = σᵢσⱼ 0.5^|i−j| (AR(1) correlations); start 0
//	gauss50   N(m, Σ) in d = 50, mⱼ = ((j mod 5) − 2)/2, Σ = Q diag(λ) Qᵀ with
//	          Q a fixed random rotation and λₖ = 10^(2k/49 − 1), k = 0…49:
//	          eigenvalues 0.1 … 10, condition number 100; start 0
//	banana    Haario's twisted Gaussian in d = 2 with b = 0.03:
//	          log p = −x₁²/200 − (x₂ + b x₁² − 100b)²/2, the image of
//	          N(0, diag(100, 1)) under x₂ ↦ x₂ − b x₁² + 100b;
//	          E x = 0, Var x₁ = 100, Var x₂ = 1 + 2·10⁴b² = 19; start 0
//	mix1      0.3·N(−2, 0.5²) + 0.7·N(3, 1) in d = 1: mean 1.5,
//	          variance 6.025, P(x < 0) = 0.3009; start 0
//	mix2      0.5·N((−2, −1), I) + 0.5·N((2, 1), I) in d = 2: mean 0,
//	          variances (5, 2), P(x₁ < 0) = 1/2; start 0
//	funnel    Neal's funnel in d = 10: v ~ N(0, 3²), xᵢ | v ~ N(0, eᵛ),
//	          i = 1…9; v has mean 0, variance 9, P(v < −3) = Φ(−1) = 0.1587;
//	          each xᵢ has mean 0, variance e^4.5 ≈ 90, kurtosis 3e⁹ and
//	          P(|xᵢ| < 1) = E_v erf(e^(−v/2)/√2) = 0.6223, which is checked
//	          instead of its mean and variance; start 0
//	gamma     Gamma(3, 1) on x > 0 in d = 1, log p = 2 log x − x there and
//	          −∞ (score 0) for x ≤ 0: mean 3, variance 3,
//	          P(x < 1) = 1 − 2.5/e = 0.0803; start 2
//	student5  the multivariate Student t in d = 5 with ν = 5, location
//	          μ = (1, −1, 0, 0.5, 2) and scale matrix I: means μ, variances
//	          ν/(ν − 2) = 5/3, kurtosis 9; start 0
//
// Every target checks its means and variances (the funnel those of v
// only), the Gaussians the correlations of neighbouring coordinates and the
// spread (x − m)ᵀΣ⁻¹(x − m), and mix1, mix2, funnel and gamma
// probabilities.
func KnownTargets() []*KnownTarget {
	return []*KnownTarget{gauss5(), gauss50(), banana(), mix1(), mix2(), funnel(), gammaHalfLine(), student5()}
}

// KnownTargetByName returns the known target of that name, or nil.
func KnownTargetByName(name string) *KnownTarget {
	for _, k := range KnownTargets() {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// meanVarChecks returns the mean and variance checks of every coordinate,
// mu4[j] being the fourth central moment of coordinate j.
func meanVarChecks(mean, vr, mu4 []float64) []Check {
	var cs []Check
	for j := range mean {
		cs = append(cs, meanCheck(j, mean[j], vr[j]))
	}
	for j := range mean {
		cs = append(cs, varCheck(j, mean[j], vr[j], mu4[j]))
	}
	return cs
}

func meanCheck(j int, m, v float64) Check {
	return Check{Name: fmt.Sprintf("mean x%d", j+1), Kind: CheckMean, I: j, J: j,
		F: func(x []float64) float64 { return x[j] }, Exact: m, SD: math.Sqrt(v)}
}

func varCheck(j int, m, v, mu4 float64) Check {
	return Check{Name: fmt.Sprintf("var x%d", j+1), Kind: CheckVar, I: j, J: j,
		F: func(x []float64) float64 { return (x[j] - m) * (x[j] - m) }, Exact: v, SD: math.Sqrt(mu4 - v*v)}
}

func probCheck(name string, j int, c, p float64) Check {
	return Check{Name: name, Kind: CheckProb, I: j, J: j,
		F: func(x []float64) float64 {
			if x[j] < c {
				return 1
			}
			return 0
		}, Exact: p, SD: math.Sqrt(p * (1 - p))}
}

// gaussianKnown is N(mean, cov) with the checks of its means, variances
// (μ₄ = 3σ⁴), neighbouring correlations and spread.
func gaussianKnown(name, about string, mean []float64, cov *mat.SymDense) *KnownTarget {
	g, err := target.NewGaussian(mean, cov)
	if err != nil {
		panic("samplertest: " + name + ": " + err.Error())
	}
	d := len(mean)
	vr := make([]float64, d)
	mu4 := make([]float64, d)
	for j := range vr {
		vr[j] = cov.At(j, j)
		mu4[j] = 3 * vr[j] * vr[j]
	}
	cs := meanVarChecks(mean, vr, mu4)
	for j := 0; j+1 < d; j++ {
		i, k := j, j+1
		si, sk := math.Sqrt(vr[i]), math.Sqrt(vr[k])
		mi, mk := mean[i], mean[k]
		rho := cov.At(i, k) / (si * sk)
		cs = append(cs, Check{Name: fmt.Sprintf("corr x%d,x%d", i+1, k+1), Kind: CheckCorr, I: i, J: k,
			F:     func(x []float64) float64 { return (x[i] - mi) * (x[k] - mk) / (si * sk) },
			Exact: rho, SD: math.Sqrt(1 + rho*rho)})
	}
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		panic("samplertest: " + name + ": covariance not positive definite")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		panic("samplertest: " + name + ": " + err.Error())
	}
	prec := mat.DenseCopyOf(&inv).RawMatrix().Data // Σ⁻¹, d×d row major
	cs = append(cs, Check{Name: "spread", Kind: CheckSpread, I: 0, J: d - 1,
		F: func(x []float64) float64 {
			// (x − m)ᵀΣ⁻¹(x − m), Σ⁻¹ symmetric: the diagonal once, the
			// upper triangle twice.
			var q float64
			for i := range d {
				zi := x[i] - mean[i]
				row := prec[i*d : i*d+d]
				q += row[i] * zi * zi
				for j := i + 1; j < d; j++ {
					q += 2 * row[j] * zi * (x[j] - mean[j])
				}
			}
			return q
		}, Exact: float64(d), SD: math.Sqrt(2 * float64(d))})
	return &KnownTarget{Name: name, About: about, X0: make([]float64, d),
		Mean: append([]float64(nil), mean...), Var: vr, Checks: cs,
		d: d, f: g.LogProbGrad, draw: g.Sample}
}

func gauss5() *KnownTarget {
	mean := []float64{1, -1, 2, 0, 0.5}
	sd := []float64{1, 2, 0.5, 1, 3}
	cov := mat.NewSymDense(5, nil)
	for i := range sd {
		for j := i; j < len(sd); j++ {
			cov.SetSym(i, j, sd[i]*sd[j]*math.Pow(0.5, float64(j-i)))
		}
	}
	return gaussianKnown("gauss5", "N(m, Σ), d = 5, σ = (1, 2, 0.5, 1, 3), correlations 0.5^|i−j|", mean, cov)
}

func gauss50() *KnownTarget {
	const d = 50
	rng := rand.New(rand.NewPCG(50, 100))
	a := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	cov := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			var s float64
			for k := range d {
				s += q.At(i, k) * q.At(j, k) * math.Pow(10, 2*float64(k)/(d-1)-1)
			}
			cov.SetSym(i, j, s)
		}
	}
	mean := make([]float64, d)
	for j := range mean {
		mean[j] = float64(j%5-2) / 2
	}
	return gaussianKnown("gauss50", "N(m, Σ), d = 50, dense Σ with eigenvalues 0.1 … 10 (condition number 100)", mean, cov)
}

// bananaB is b of Haario's twisted Gaussian.
const bananaB = 0.03

func banana() *KnownTarget {
	const b = bananaB
	s := 100 * b // scale of the twist: x₂ = s(1 − χ²₁) + z
	return &KnownTarget{
		Name:  "banana",
		About: "Haario's twisted Gaussian, d = 2, b = 0.03: N(0, diag(100, 1)) bent by x₂ − b x₁² + 100b",
		X0:    []float64{0, 0},
		Mean:  []float64{0, 0},
		Var:   []float64{100, 1 + 2*s*s},
		// μ₄(x₁) = 3·100²; x₂ − E x₂ = s(1 − χ²₁) + z with E(χ²₁ − 1)⁴ = 60:
		// μ₄(x₂) = 60s⁴ + 6·2s² + 3.
		Checks: meanVarChecks([]float64{0, 0}, []float64{100, 1 + 2*s*s}, []float64{3e4, 60*s*s*s*s + 12*s*s + 3}),
		d:      2,
		f: func(x, grad []float64) float64 {
			r := x[1] + b*x[0]*x[0] - 100*b
			grad[0] = -x[0]/100 - 2*b*x[0]*r
			grad[1] = -r
			return -x[0]*x[0]/200 - r*r/2
		},
		draw: func(rng *rand.Rand, dst []float64) {
			y := 10 * rng.NormFloat64()
			dst[0] = y
			dst[1] = rng.NormFloat64() - b*y*y + 100*b
		},
	}
}

// maxMix bounds the components of a gaussMix, so that its score needs no
// allocation.
const maxMix = 4

// gaussMix is Σₖ wₖ N(μₖ, sₖ² I) in len(μₖ) dimensions, at most maxMix
// components.
type gaussMix struct {
	w  []float64
	mu [][]float64
	s  []float64
}

func (g gaussMix) logProbGrad(x, grad []float64) float64 {
	// log Σₖ wₖ N(x; μₖ, sₖ²I) by log-sum-exp; the score is the
	// responsibility-weighted sum of the components' scores.
	d := len(x)
	var buf [maxMix]float64
	lk := buf[:len(g.w)]
	mx := math.Inf(-1)
	for k := range g.w {
		var q float64
		for j := range x {
			z := (x[j] - g.mu[k][j]) / g.s[k]
			q += z * z
		}
		lk[k] = math.Log(g.w[k]) - float64(d)*math.Log(g.s[k]) - q/2
		mx = max(mx, lk[k])
	}
	var sum float64
	for k := range lk {
		lk[k] = math.Exp(lk[k] - mx)
		sum += lk[k]
	}
	for j := range grad {
		grad[j] = 0
	}
	for k := range lk {
		r := lk[k] / sum
		for j := range x {
			grad[j] -= r * (x[j] - g.mu[k][j]) / (g.s[k] * g.s[k])
		}
	}
	return mx + math.Log(sum) - float64(d)/2*math.Log(2*math.Pi)
}

func (g gaussMix) draw(rng *rand.Rand, dst []float64) {
	u, k := rng.Float64(), 0
	for k < len(g.w)-1 && u >= g.w[k] {
		u -= g.w[k]
		k++
	}
	for j := range dst {
		dst[j] = g.mu[k][j] + g.s[k]*rng.NormFloat64()
	}
}

// moments returns the mean, variance and fourth central moment of
// coordinate j, E(y − m)⁴ = δ⁴ + 6δ²s² + 3s⁴ for y ~ N(m + δ, s²).
func (g gaussMix) moments(j int) (m, v, mu4 float64) {
	for k, w := range g.w {
		m += w * g.mu[k][j]
	}
	for k, w := range g.w {
		dl, s2 := g.mu[k][j]-m, g.s[k]*g.s[k]
		v += w * (dl*dl + s2)
		mu4 += w * (dl*dl*dl*dl + 6*dl*dl*s2 + 3*s2*s2)
	}
	return m, v, mu4
}

// below returns P(x_j < c).
func (g gaussMix) below(j int, c float64) float64 {
	var p float64
	for k, w := range g.w {
		p += w * 0.5 * math.Erfc(-(c-g.mu[k][j])/(g.s[k]*math.Sqrt2))
	}
	return p
}

func mixKnown(name, about string, g gaussMix) *KnownTarget {
	d := len(g.mu[0])
	mean, vr, mu4 := make([]float64, d), make([]float64, d), make([]float64, d)
	for j := range d {
		mean[j], vr[j], mu4[j] = g.moments(j)
	}
	cs := append(meanVarChecks(mean, vr, mu4), probCheck("P(x1<0)", 0, 0, g.below(0, 0)))
	return &KnownTarget{Name: name, About: about, X0: make([]float64, d), Mean: mean, Var: vr, Checks: cs,
		d: d, f: g.logProbGrad, draw: g.draw}
}

func mix1() *KnownTarget {
	return mixKnown("mix1", "0.3·N(−2, 0.5²) + 0.7·N(3, 1), d = 1",
		gaussMix{w: []float64{0.3, 0.7}, mu: [][]float64{{-2}, {3}}, s: []float64{0.5, 1}})
}

func mix2() *KnownTarget {
	return mixKnown("mix2", "0.5·N((−2, −1), I) + 0.5·N((2, 1), I), d = 2",
		gaussMix{w: []float64{0.5, 0.5}, mu: [][]float64{{-2, -1}, {2, 1}}, s: []float64{1, 1}})
}

// funnelD is the dimension of Neal's funnel: v and 9 coordinates xᵢ.
const funnelD = 10

func funnel() *KnownTarget {
	const d = funnelD
	mean := make([]float64, d)
	vr := make([]float64, d)
	vr[0] = 9
	for j := 1; j < d; j++ {
		vr[j] = math.Exp(4.5) // E eᵛ = e^(9/2)
	}
	cs := []Check{
		meanCheck(0, 0, 9),
		varCheck(0, 0, 9, 3*81),
		probCheck("P(v<-3)", 0, -3, 0.5*math.Erfc(1/math.Sqrt2)),
	}
	// The xᵢ have heavy tails (kurtosis 3e⁹): their means and variances
	// are poor checks. P(|xᵢ| < 1) = E_v erf(e^(−v/2)/√2) is bounded and
	// measures the neck as P(v < −3) does, from the other side.
	p := funnelSmall()
	for j := 1; j < d; j++ {
		cs = append(cs, Check{Name: fmt.Sprintf("P(|x%d|<1)", j+1), Kind: CheckProb, I: j, J: j,
			F: func(x []float64) float64 {
				if math.Abs(x[j]) < 1 {
					return 1
				}
				return 0
			}, Exact: p, SD: math.Sqrt(p * (1 - p))})
	}
	return &KnownTarget{
		Name:    "funnel",
		About:   "Neal's funnel, d = 10: v ~ N(0, 9), x₁…x₉ | v ~ N(0, eᵛ)",
		X0:      make([]float64, d),
		Mean:    mean,
		Var:     vr,
		Checks:  cs,
		ErrorOK: true,
		d:       d,
		f: func(x, grad []float64) float64 {
			v := x[0]
			e := math.Exp(-v)
			var q float64
			for j := 1; j < d; j++ {
				q += x[j] * x[j]
				grad[j] = -x[j] * e
			}
			grad[0] = -v/9 + q*e/2 - float64(d-1)/2
			return -v*v/18 - q*e/2 - float64(d-1)/2*v
		},
		draw: func(rng *rand.Rand, dst []float64) {
			dst[0] = 3 * rng.NormFloat64()
			s := math.Exp(dst[0] / 2)
			for j := 1; j < d; j++ {
				dst[j] = s * rng.NormFloat64()
			}
		},
	}
}

// funnelSmall returns P(|xᵢ| < 1) = E_v erf(e^(−v/2)/√2), v ~ N(0, 9), by
// the trapezoidal rule in u = v/3 on [−12, 12] (the rest weighs below
// 1e-30), with step 1e-3: the integrand is smooth and the rule's error is
// far below the checks' tolerances.
func funnelSmall() float64 {
	const h = 1e-3
	var s float64
	for i := -12000; i <= 12000; i++ {
		u := float64(i) * h
		w := h
		if i == -12000 || i == 12000 {
			w /= 2
		}
		s += w * math.Exp(-u*u/2) * math.Erf(math.Exp(-1.5*u)/math.Sqrt2)
	}
	return s / math.Sqrt(2*math.Pi)
}

func gammaHalfLine() *KnownTarget {
	// Gamma(3, 1): mean k = 3, variance k = 3, μ₄ = 3k² + 6k = 45.
	return &KnownTarget{
		Name:    "gamma",
		About:   "Gamma(3, 1) on x > 0, d = 1, log p = −∞ for x ≤ 0",
		X0:      []float64{2},
		Mean:    []float64{3},
		Var:     []float64{3},
		Checks:  append(meanVarChecks([]float64{3}, []float64{3}, []float64{45}), probCheck("P(x1<1)", 0, 1, 1-2.5/math.E)),
		In:      func(x []float64) bool { return x[0] > 0 },
		ErrorOK: true,
		d:       1,
		f: func(x, grad []float64) float64 {
			if !(x[0] > 0) {
				grad[0] = 0
				return math.Inf(-1)
			}
			grad[0] = 2/x[0] - 1
			return 2*math.Log(x[0]) - x[0]
		},
		draw: func(rng *rand.Rand, dst []float64) {
			dst[0] = rng.ExpFloat64() + rng.ExpFloat64() + rng.ExpFloat64()
		},
	}
}

func student5() *KnownTarget {
	const d, nu = 5, 5.0
	loc := []float64{1, -1, 0, 0.5, 2}
	vr := make([]float64, d)
	mu4 := make([]float64, d)
	for j := range vr {
		vr[j] = nu / (nu - 2)
		mu4[j] = 3 * nu * nu / ((nu - 2) * (nu - 4)) // E t⁴ of t_ν
	}
	return &KnownTarget{
		Name:   "student5",
		About:  "multivariate Student t, d = 5, ν = 5, location (1, −1, 0, 0.5, 2), scale I",
		X0:     make([]float64, d),
		Mean:   append([]float64(nil), loc...),
		Var:    vr,
		Checks: meanVarChecks(loc, vr, mu4),
		d:      d,
		f: func(x, grad []float64) float64 {
			// log p = −(ν + d)/2 · log(1 + ‖x − μ‖²/ν).
			var r2 float64
			for j := range x {
				r2 += (x[j] - loc[j]) * (x[j] - loc[j])
			}
			c := (nu + d) / (nu + r2)
			for j := range x {
				grad[j] = -c * (x[j] - loc[j])
			}
			return -(nu + d) / 2 * math.Log1p(r2/nu)
		},
		draw: func(rng *rand.Rand, dst []float64) {
			// μ + z/√(χ²_ν/ν).
			var chi float64
			for range int(nu) {
				z := rng.NormFloat64()
				chi += z * z
			}
			s := math.Sqrt(nu / chi)
			for j := range dst {
				dst[j] = loc[j] + s*rng.NormFloat64()
			}
		},
	}
}
