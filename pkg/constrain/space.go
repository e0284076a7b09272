package constrain

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// kind is a parameter's transform.
type kind int

const (
	kReal kind = iota
	kLower
	kUpper
	kInterval
	kOrdered
	kPositiveOrdered
	kSimplex
)

func (k kind) String() string {
	return [...]string{"real", "lower-bounded", "upper-bounded", "interval", "ordered", "positive ordered", "simplex"}[k]
}

// Bound is one side of a parameter's interval: a constant, or a
// differentiable function of parameters declared before it. The zero Bound
// is no bound.
type Bound struct {
	set bool
	c   float64
	// f, when not nil, gives the bound at x; grad adds w·∂f/∂x into gx.
	f    func(x []float64) float64
	grad func(x []float64, w float64, gx []float64)
	desc string
}

// Const returns the constant bound c. An infinite c is no bound.
func Const(c float64) Bound {
	if math.IsNaN(c) {
		panic("constrain: NaN bound")
	}
	if math.IsInf(c, 0) {
		return Bound{}
	}
	return Bound{set: true, c: c, desc: strconv.FormatFloat(c, 'g', -1, 64)}
}

// Affine returns the bound c + a·p, where p is a scalar parameter declared
// before the bounded one, as Stan's upper = 1 − α₁ (Affine(1, −1, alpha1)).
func Affine(c, a float64, p Param) Bound {
	if p.n != 1 || len(p.dims) != 0 {
		panic(fmt.Sprintf("constrain: Affine bound on %s, which is not a scalar", p.name))
	}
	off := p.off
	return Bound{
		set:  true,
		f:    func(x []float64) float64 { return c + a*x[off] },
		grad: func(_ []float64, w float64, gx []float64) { gx[off] += a * w },
		desc: affineString(c, a, p.name),
		c:    math.NaN(),
	}
}

// affineString writes c + a·name as a reader would: "1 − alpha1".
func affineString(c, a float64, name string) string {
	var sb strings.Builder
	if c != 0 {
		fmt.Fprintf(&sb, "%g ", c)
	}
	switch {
	case a < 0 && c != 0:
		sb.WriteString("− ")
		a = -a
	case a < 0:
		sb.WriteString("−")
		a = -a
	case c != 0:
		sb.WriteString("+ ")
	}
	if a != 1 {
		fmt.Fprintf(&sb, "%g·", a)
	}
	sb.WriteString(name)
	return sb.String()
}

// BoundFunc returns a bound computed by f from the constrained values x of
// the parameters declared before the bounded one (f must read no others);
// grad adds w·∂f/∂x into gx. Both must be safe for concurrent use and
// should not allocate.
func BoundFunc(f func(x []float64) float64, grad func(x []float64, w float64, gx []float64)) Bound {
	if f == nil || grad == nil {
		panic("constrain: BoundFunc needs both the bound and its gradient")
	}
	return Bound{set: true, f: f, grad: grad, desc: "f(x)", c: math.NaN()}
}

func (b Bound) at(x []float64) float64 {
	if b.f == nil {
		return b.c
	}
	return b.f(x)
}

// block is one declared parameter.
type block struct {
	name   string
	kind   kind
	dims   []int
	n, m   int // constrained and unconstrained lengths
	xo, uo int // offsets in x and u
	lo, hi Bound
}

// derived is one declared derived quantity.
type derived struct {
	name   string
	dims   []int
	n      int
	value  func(dst, x []float64)
	invert func(x, v []float64)
}

// Space declares the parameters of a posterior, in order. The zero Space is
// empty and ready for use. Declarations panic on a programmer error (a name
// declared twice, a bad dimension or bound).
type Space struct {
	blocks  []block
	derived []derived
	report  []string
	nx, nu  int
	names   map[string]bool
}

// Param is a declared parameter: where its constrained values lie in x (and
// its gradient in grad) of a Posterior's log density.
type Param struct {
	name string
	dims []int
	off  int
	n    int
}

// Name returns the parameter's name.
func (p Param) Name() string { return p.name }

// Len returns the number of its constrained values.
func (p Param) Len() int { return p.n }

// Dims returns a copy of its dimensions (none for a scalar).
func (p Param) Dims() []int { return append([]int(nil), p.dims...) }

// Offset returns the position of its first value in x.
func (p Param) Offset() int { return p.off }

// Value returns the value of a scalar parameter in x.
func (p Param) Value(x []float64) float64 {
	if p.n != 1 {
		panic(fmt.Sprintf("constrain: Value of %s, which has %d values", p.name, p.n))
	}
	return x[p.off]
}

// Slice returns the parameter's values in x (or its gradient in grad),
// flattened column-major, as a subslice sharing x's storage.
func (p Param) Slice(x []float64) []float64 { return x[p.off : p.off+p.n : p.off+p.n] }

// Index returns the position in x of the element at 0-based indices idx,
// one per dimension: for a matrix of r rows, element (i, j) is at
// Offset() + i + r·j.
func (p Param) Index(idx ...int) int {
	if len(idx) != len(p.dims) {
		panic(fmt.Sprintf("constrain: %s has %d dimensions, given %d indices", p.name, len(p.dims), len(idx)))
	}
	pos, stride := 0, 1
	for k, i := range idx {
		if i < 0 || i >= p.dims[k] {
			panic(fmt.Sprintf("constrain: index %d of %s out of range [0, %d)", i, p.name, p.dims[k]))
		}
		pos += i * stride
		stride *= p.dims[k]
	}
	return p.off + pos
}

func (s *Space) claim(name string) {
	if name == "" || strings.ContainsAny(name, "[], ") {
		panic(fmt.Sprintf("constrain: invalid name %q", name))
	}
	if s.names == nil {
		s.names = map[string]bool{}
	}
	if s.names[name] {
		panic(fmt.Sprintf("constrain: %s declared twice", name))
	}
	s.names[name] = true
}

func size(name string, dims []int) int {
	n := 1
	for _, d := range dims {
		if d < 1 {
			panic(fmt.Sprintf("constrain: %s has dimension %d; every dimension must be at least 1", name, d))
		}
		n *= d
	}
	return n
}

func (s *Space) add(b block) Param {
	s.claim(b.name)
	b.dims = append([]int(nil), b.dims...)
	b.xo, b.uo = s.nx, s.nu
	s.nx += b.n
	s.nu += b.m
	s.blocks = append(s.blocks, b)
	return Param{name: b.name, dims: b.dims, off: b.xo, n: b.n}
}

// Real declares an unconstrained parameter, scalar or of the given
// dimensions.
func (s *Space) Real(name string, dims ...int) Param {
	n := size(name, dims)
	return s.add(block{name: name, kind: kReal, dims: dims, n: n, m: n})
}

// Lower declares a parameter bounded below by lo: x = lo + eᵘ.
func (s *Space) Lower(name string, lo float64, dims ...int) Param {
	return s.Bounded(name, Const(lo), Bound{}, dims...)
}

// Upper declares a parameter bounded above by hi: x = hi − eᵘ.
func (s *Space) Upper(name string, hi float64, dims ...int) Param {
	return s.Bounded(name, Bound{}, Const(hi), dims...)
}

// Interval declares a parameter in (lo, hi): x = lo + (hi − lo) σ(u).
func (s *Space) Interval(name string, lo, hi float64, dims ...int) Param {
	if !(lo < hi) {
		panic(fmt.Sprintf("constrain: %s has lower bound %g not below upper bound %g", name, lo, hi))
	}
	return s.Bounded(name, Const(lo), Const(hi), dims...)
}

// Bounded declares a parameter with the bounds lo and hi, either of which
// may be the zero Bound (none) and either of which may depend on earlier
// parameters; an array shares its bounds across its elements.
func (s *Space) Bounded(name string, lo, hi Bound, dims ...int) Param {
	n := size(name, dims)
	b := block{name: name, dims: dims, n: n, m: n, lo: lo, hi: hi}
	switch {
	case lo.set && hi.set:
		b.kind = kInterval
		if lo.f == nil && hi.f == nil && !(lo.c < hi.c) {
			panic(fmt.Sprintf("constrain: %s has lower bound %g not below upper bound %g", name, lo.c, hi.c))
		}
	case lo.set:
		b.kind = kLower
	case hi.set:
		b.kind = kUpper
	default:
		b.kind = kReal
	}
	return s.add(b)
}

// Ordered declares a strictly increasing vector of k values.
func (s *Space) Ordered(name string, k int) Param {
	size(name, []int{k})
	return s.add(block{name: name, kind: kOrdered, dims: []int{k}, n: k, m: k})
}

// PositiveOrdered declares a strictly increasing vector of k positive values.
func (s *Space) PositiveOrdered(name string, k int) Param {
	size(name, []int{k})
	return s.add(block{name: name, kind: kPositiveOrdered, dims: []int{k}, n: k, m: k})
}

// Simplex declares a vector of k ≥ 2 non-negative values summing to 1, with
// k − 1 unconstrained coordinates (stick-breaking).
func (s *Space) Simplex(name string, k int) Param {
	if k < 2 {
		panic(fmt.Sprintf("constrain: simplex %s of %d values; it needs at least 2", name, k))
	}
	return s.add(block{name: name, kind: kSimplex, dims: []int{k}, n: k, m: k - 1})
}

// Derived declares a quantity of the given dimensions computed from the
// parameters: value writes it into dst (flattened column-major) from the
// constrained parameters x. invert, which may be nil, is its inverse as far
// as Unconstrain needs it: given the derived values v and x holding every
// reported parameter, it writes into x the parameters v stands for (for
// θ = μ + τ θ̃: θ̃ = (θ − μ)/τ). Both must be safe for concurrent use.
func (s *Space) Derived(name string, value func(dst, x []float64), invert func(x, v []float64), dims ...int) {
	if value == nil {
		panic("constrain: Derived " + name + " without a value function")
	}
	n := size(name, dims)
	s.claim(name)
	s.derived = append(s.derived, derived{name: name, dims: append([]int(nil), dims...), n: n, value: value, invert: invert})
}

// Report sets the names Constrain writes, in order: parameters and derived
// quantities. Without it, Constrain writes every parameter in declaration
// order.
func (s *Space) Report(names ...string) {
	seen := map[string]bool{}
	for _, n := range names {
		if !s.names[n] {
			panic(fmt.Sprintf("constrain: Report of %s, which is not declared", n))
		}
		if seen[n] {
			panic(fmt.Sprintf("constrain: Report of %s twice", n))
		}
		seen[n] = true
	}
	s.report = append([]string(nil), names...)
}

// elementNames appends the flattened names of an array of the given
// dimensions: name for a scalar, name[i,j,…] (1-based) otherwise, the first
// index running fastest.
func elementNames(dst []string, name string, dims []int) []string {
	if len(dims) == 0 {
		return append(dst, name)
	}
	idx := make([]int, len(dims))
	var sb strings.Builder
	for {
		sb.Reset()
		sb.WriteString(name)
		sb.WriteByte('[')
		for k, i := range idx {
			if k > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Itoa(i + 1))
		}
		sb.WriteByte(']')
		dst = append(dst, sb.String())
		k := 0
		for ; k < len(dims); k++ {
			idx[k]++
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
		}
		if k == len(dims) {
			return dst
		}
	}
}
