package constrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// Posterior is a log density over a Space's constrained parameters seen as a
// target.Target on the unconstrained space ℝᵈ, d = Dim(): its LogProbGrad
// includes the log-Jacobian of the transforms. It is safe for concurrent
// use when its log density is, and evaluates without allocating.
type Posterior struct {
	blocks  []block
	derived []derived
	nx, nu  int
	logp    func(x, grad []float64) float64

	// report lists what Constrain writes: a parameter (block index ≥ 0)
	// or a derived quantity (−1 − its index).
	report []int
	nrep   int
	names  []string
	pnames []string
	unames []string

	pool sync.Pool
}

type scratch struct{ x, gx []float64 }

// Posterior binds the declared parameters to logp, which returns log p(x) up
// to an additive constant and adds ∂log p/∂x into grad, zeroed before the
// call (so that writing it is as good), as every gradient callback of
// package target does; x and grad are laid out as the Params say. logp must be safe for
// concurrent use. Later declarations on s do not change the Posterior.
func (s *Space) Posterior(logp func(x, grad []float64) float64) *Posterior {
	if logp == nil {
		panic("constrain: nil log density")
	}
	if s.nu == 0 {
		panic("constrain: a posterior needs at least one parameter")
	}
	p := &Posterior{
		blocks:  append([]block(nil), s.blocks...),
		derived: append([]derived(nil), s.derived...),
		nx:      s.nx,
		nu:      s.nu,
		logp:    logp,
	}
	nx := s.nx
	p.pool.New = func() any { return &scratch{x: make([]float64, nx), gx: make([]float64, nx)} }
	for i, b := range p.blocks {
		p.pnames = elementNames(p.pnames, b.name, b.dims)
		switch b.kind {
		case kSimplex:
			p.unames = elementNames(p.unames, b.name, []int{b.m})
		default:
			p.unames = elementNames(p.unames, b.name, b.dims)
		}
		if s.report == nil {
			p.report = append(p.report, i)
		}
	}
	for _, name := range s.report {
		found := false
		for i, b := range p.blocks {
			if b.name == name {
				p.report = append(p.report, i)
				found = true
			}
		}
		for i, d := range p.derived {
			if d.name == name {
				p.report = append(p.report, -1-i)
				found = true
			}
		}
		if !found {
			panic("constrain: reported " + name + " is not declared")
		}
	}
	for _, r := range p.report {
		if r >= 0 {
			b := p.blocks[r]
			p.names = elementNames(p.names, b.name, b.dims)
			p.nrep += b.n
		} else {
			d := p.derived[-1-r]
			p.names = elementNames(p.names, d.name, d.dims)
			p.nrep += d.n
		}
	}
	return p
}

// Dim returns d, the number of unconstrained coordinates.
func (p *Posterior) Dim() int { return p.nu }

// NumParams returns the length of the constrained parameter vector x.
func (p *Posterior) NumParams() int { return p.nx }

// Names returns the flattened names of what Constrain writes, in order.
func (p *Posterior) Names() []string { return append([]string(nil), p.names...) }

// ParamNames returns the flattened names of the constrained parameters x,
// in declaration order.
func (p *Posterior) ParamNames() []string { return append([]string(nil), p.pnames...) }

// UnconstrainedNames names the d unconstrained coordinates by the parameter
// element each maps to (a simplex of K names its first K − 1 elements).
func (p *Posterior) UnconstrainedNames() []string { return append([]string(nil), p.unames...) }

// LogProbGrad returns log p(x(u)) + log |det ∂x/∂u| up to the constant of the
// log density and writes its gradient with respect to u into grad.
func (p *Posterior) LogProbGrad(u, grad []float64) float64 {
	if len(u) != p.nu || len(grad) != p.nu {
		panic(fmt.Sprintf("constrain: posterior of dimension %d given len(u) = %d, len(grad) = %d", p.nu, len(u), len(grad)))
	}
	sc := p.pool.Get().(*scratch)
	lj := p.forward(sc.x, u)
	clear(sc.gx)
	lp := p.logp(sc.x, sc.gx)
	p.backward(grad, u, sc.x, sc.gx)
	p.pool.Put(sc)
	return lp + lj
}

// ConstrainParams writes the constrained parameters x(u) into dst
// (allocated when nil, else of length NumParams) and returns it.
func (p *Posterior) ConstrainParams(dst, u []float64) []float64 {
	if len(u) != p.nu {
		panic(fmt.Sprintf("constrain: posterior of dimension %d given len(u) = %d", p.nu, len(u)))
	}
	if dst == nil {
		dst = make([]float64, p.nx)
	}
	if len(dst) != p.nx {
		panic(fmt.Sprintf("constrain: ConstrainParams into len(dst) = %d, want %d", len(dst), p.nx))
	}
	p.forward(dst, u)
	return dst
}

// Constrain writes the reported values at u, named by Names, into dst
// (allocated when nil, else of length len(Names())) and returns it.
func (p *Posterior) Constrain(dst, u []float64) []float64 {
	if len(u) != p.nu {
		panic(fmt.Sprintf("constrain: posterior of dimension %d given len(u) = %d", p.nu, len(u)))
	}
	if dst == nil {
		dst = make([]float64, p.nrep)
	}
	if len(dst) != p.nrep {
		panic(fmt.Sprintf("constrain: Constrain into len(dst) = %d, want %d", len(dst), p.nrep))
	}
	sc := p.pool.Get().(*scratch)
	p.forward(sc.x, u)
	o := 0
	for _, r := range p.report {
		if r >= 0 {
			b := p.blocks[r]
			o += copy(dst[o:o+b.n], sc.x[b.xo:b.xo+b.n])
		} else {
			d := p.derived[-1-r]
			d.value(dst[o:o+d.n], sc.x)
			o += d.n
		}
	}
	p.pool.Put(sc)
	return dst
}

// Unconstrain maps reported values v (as Constrain writes them) back to the
// unconstrained point, written into dst (allocated when nil) and returned.
// The parameters not reported must be recoverable through the inverses of
// the reported derived quantities. It returns an error naming the value
// that lies outside its parameter's support or the parameter it cannot
// recover.
func (p *Posterior) Unconstrain(dst, v []float64) ([]float64, error) {
	if len(v) != p.nrep {
		return nil, fmt.Errorf("constrain: Unconstrain given %d values, want %d (%v)", len(v), p.nrep, p.names)
	}
	x := make([]float64, p.nx)
	for i := range x {
		x[i] = math.NaN()
	}
	o := 0
	for _, r := range p.report {
		if r >= 0 {
			b := p.blocks[r]
			o += copy(x[b.xo:b.xo+b.n], v[o:o+b.n])
		} else {
			o += p.derived[-1-r].n
		}
	}
	o = 0
	for _, r := range p.report {
		if r >= 0 {
			o += p.blocks[r].n
			continue
		}
		d := p.derived[-1-r]
		if d.invert != nil {
			d.invert(x, v[o:o+d.n])
		}
		o += d.n
	}
	for _, b := range p.blocks {
		for i := b.xo; i < b.xo+b.n; i++ {
			if math.IsNaN(x[i]) {
				return nil, fmt.Errorf("constrain: %s is neither reported nor recovered from a reported quantity (or is NaN)", p.pnames[i])
			}
		}
	}
	return p.UnconstrainParams(dst, x)
}

// UnconstrainParams maps the constrained parameters x to the unconstrained
// point u, written into dst (allocated when nil) and returned. It returns an
// error naming the first value outside its parameter's support (a simplex
// must sum to 1 within 10⁻⁸, as Stan requires).
func (p *Posterior) UnconstrainParams(dst, x []float64) ([]float64, error) {
	if len(x) != p.nx {
		return nil, fmt.Errorf("constrain: UnconstrainParams given %d values, want %d", len(x), p.nx)
	}
	if dst == nil {
		dst = make([]float64, p.nu)
	}
	if len(dst) != p.nu {
		panic(fmt.Sprintf("constrain: UnconstrainParams into len(dst) = %d, want %d", len(dst), p.nu))
	}
	for _, b := range p.blocks {
		if err := b.free(dst[b.uo:b.uo+b.m], x, p.pnames[b.xo:b.xo+b.n]); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// Init writes Stan's default starting point into dst (length Dim): every
// unconstrained coordinate uniform on (−2, 2).
func (p *Posterior) Init(rng *rand.Rand, dst []float64) {
	if len(dst) != p.nu {
		panic(fmt.Sprintf("constrain: Init into len(dst) = %d, want %d", len(dst), p.nu))
	}
	for i := range dst {
		dst[i] = 4*rng.Float64() - 2
	}
}

// forward writes x(u) and returns the log-Jacobian.
func (p *Posterior) forward(x, u []float64) float64 {
	var lj float64
	for i := range p.blocks {
		lj += p.blocks[i].constrain(x, u)
	}
	return lj
}

// backward writes into grad the gradient with respect to u of
// f(x(u)) + J(u), given gx = ∂f/∂x at x = x(u); gx is used as the adjoint
// of x and is overwritten.
func (p *Posterior) backward(grad, u, x, gx []float64) {
	for i := len(p.blocks) - 1; i >= 0; i-- {
		p.blocks[i].adjoint(grad, u, x, gx)
	}
}
