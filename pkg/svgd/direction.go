package svgd

import (
	"math"
	"unsafe"

	"github.com/mmdfw/mmdfw/pkg/kernel"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/dense"
	"github.com/mmdfw/mmdfw/pkg/par"
)

// Workspace holds the scratch of the SVGD direction of n particles in
// dimension d, so that the iterations allocate nothing.
type Workspace struct {
	n, d int
	// k holds the squared distances, then the Gram matrix in place.
	k  *mat.Dense
	t  *mat.Dense // S − X/h², rows padded to whole cache lines
	xt []float64  // Xᵀ, d×n with row stride ldxt
	// ldxt is n rounded up to whole cache lines (8 values): with xt and
	// t aligned to 64 bytes, the rows that the products load as vectors
	// never straddle two cache lines.
	ldxt int
	// xtFresh reports that xt already holds the transpose of the X of the
	// next startDirection: the update of the previous direction wrote it
	// beside the particles it moved (see dirJob.product).
	xtFresh bool
	norms   []float64
	median  []float64
	job     dirJob
}

// NewWorkspace returns the scratch for n particles in dimension d: two n×n
// buffers, two n×d and a few of length n.
func NewWorkspace(n, d int) *Workspace {
	if n < 1 || d < 1 {
		panic("svgd: workspace needs n ≥ 1 particles and d ≥ 1")
	}
	ldxt, ldt := (n+7)&^7, (d+7)&^7
	t := &mat.Dense{}
	t.SetRawMatrix(blas64.General{Rows: n, Cols: d, Stride: ldt, Data: aligned64((n-1)*ldt + d)})
	return &Workspace{
		n: n, d: d,
		k:      mat.NewDense(n, n, nil),
		t:      t,
		xt:     aligned64((d-1)*ldxt + n),
		ldxt:   ldxt,
		norms:  make([]float64, n),
		median: make([]float64, n*n),
	}
}

// aligned64 returns a zeroed slice of length n whose first element is at an
// address that is a multiple of 64 bytes (a cache line).
func aligned64(n int) []float64 {
	s := make([]float64, n+7)
	off := int(uintptr(unsafe.Pointer(&s[0]))%64) / 8
	if off != 0 {
		off = 8 - off
	}
	return s[off : off+n : off+n]
}

// Direction writes the SVGD direction of every particle into dst (n×d):
//
//	φ(xᵢ) = (1/n) Σⱼ [k(xⱼ, xᵢ) ∇log p(xⱼ) + ∇_{xⱼ} k(xⱼ, xᵢ)],
//
// given the particles X (n×d, one per row) and their scores (n×d, row j is
// ∇log p(xⱼ) or its minibatch estimate). It allocates nothing, runs on the
// calling goroutine and costs O(n²d): one product X Xᵀ for the distances,
// n(n−1)/2 exponentials, and one product K T, both with internal/gemm's
// kernel (fused multiply-adds in the order of the inner index, the same
// bits on every path), since with ∇_{xⱼ}k(xⱼ, xᵢ) =
// (xᵢ − xⱼ) K_ij / h² the two sums share the Gram matrix K:
//
//	φ(xᵢ) = (1/n) [Σⱼ K_ij (sⱼ − xⱼ/h²) + (Σⱼ K_ij) xᵢ/h²].
//
// The RBF bandwidth is k.H when it is positive. When k.H is zero it follows
// the reference median heuristic on the current particles,
// h = √(½ med / log(n+1)), with med the median of the squared distances
// over all n² entries when excludeDiag is false (as the reference code
// does) and over the n(n−1)/2 distinct pairs otherwise; a zero median gives
// h = 1. Direction returns the kernel it used.
//
// dst must not share memory with X or scores.
func Direction(dst, X, scores *mat.Dense, k kernel.RBF, excludeDiag bool, ws *Workspace) kernel.RBF {
	ws.xtFresh = false
	startDirection(nil, X, scores, k, excludeDiag, false, 1, ws).Run(0)
	return finishDirection(dst, ws, nil)
}

// teamWork is the smallest n²d (multiply-adds of K·T, half those of X Xᵀ's
// upper blocks) of a direction split over a team: SVGD's logistic shape
// (n = 100, d = 56: 5.6·10⁵) splits, while below 2¹⁶ (34 particles at
// d = 56) the parts would take a few microseconds, as long as the wake-up
// of a parked helper (9–10 µs, `go test -bench Handoff ./pkg/par`).
const teamWork = 1 << 16

// adagradStep is the update applied to each block of rows of the direction
// as soon as it is complete, when finishDirection is given one (see
// state.step).
type adagradStep struct {
	x, hist           *mat.Dense
	eps, alpha, fudge float64
	first             bool
}

// Phases of a direction job.
const (
	phaseTranspose = iota // Xᵀ in column blocks of X
	phaseGram             // X Xᵀ in strips of eight rows
	phaseMedian           // the squared distances and the bandwidth, one part
	phaseExp              // exponentials of the upper rows, then T = S − X/h²
	phaseProduct          // K·T, the diagonal term and the update, in row strips
)

// dirJob is one direction call as the parts of team jobs (see
// startDirection and finishDirection).
type dirJob struct {
	ws               *Workspace
	dst, x, scores   *mat.Dense
	upd              *adagradStep
	team             *par.Team
	phase            int
	kern             kernel.RBF
	excludeDiag      bool
	medianDist       bool    // h² = med over distinct pairs (BandwidthParticles)
	distScale        float64 // h = distScale·√med with medianDist
	inv2, c, invN    float64
	rowParts, colBlk int // the product phase's row strips and column block
	parts            int // of the product phase

	// pf, when not nil, is asked to prefetch the rows ahead, a slice per
	// part of the product phase, so that the prefetches overlap the
	// products instead of waiting for the memory in one burst.
	pf    prefetcher
	ahead []int
}

// Rows per part of the exponential phase, and per strip of
// the Gram and product phases.
const (
	dirRowBlock = 8
	dirStrip    = 8
	// sumGroup is the number of rows whose sums rowSums takes side by
	// side.
	sumGroup = 4
)

// dirTransposeBlock is the number of columns of X per transpose part.
const dirTransposeBlock = 32

func (j *dirJob) Run(part int) {
	ws := j.ws
	n, d := ws.n, ws.d
	switch j.phase {
	case phaseTranspose:
		xr := j.x.RawMatrix()
		c0, c1 := part*dirTransposeBlock, min((part+1)*dirTransposeBlock, d)
		for i := 0; i < n; i++ {
			for c, v := range xr.Data[i*xr.Stride+c0 : i*xr.Stride+c1] {
				ws.xt[(c0+c)*ws.ldxt+i] = v
			}
		}
	case phaseGram:
		// Only the blocks on and above the diagonal: the strip of eight
		// rows from its first row's column on.
		xr, raw := j.x.RawMatrix(), ws.k.RawMatrix()
		i0 := part * dirStrip
		rows, j0 := min(dirStrip, n-i0), i0&^7
		dense.MulNN(rows, n-j0, d, 1, xr.Data[i0*xr.Stride:], xr.Stride, ws.xt[j0:], ws.ldxt, raw.Data[i0*raw.Stride+j0:], raw.Stride)
	case phaseMedian:
		// The squared distances above the diagonal (the exponentials
		// need them whatever the bandwidth), then the median heuristic.
		raw := ws.k.RawMatrix()
		for i := 0; i < n; i++ {
			raw.Data[i*raw.Stride+i] = 0
			row := raw.Data[i*raw.Stride+i+1 : i*raw.Stride+n]
			nc := ws.norms[i+1 : n]
			ni := ws.norms[i]
			for c, g := range row {
				v := ni + nc[c] - 2*g
				if v < 0 {
					v = 0
				}
				row[c] = v
			}
		}
		switch {
		case j.kern.H != 0:
		case j.medianDist:
			j.kern.H = 1
			if m := kernel.MedianSq(ws.k, false, ws.median); m > 0 {
				j.kern.H = j.distScale * math.Sqrt(m)
			}
		default:
			j.kern.H = kernel.SVGDBandwidth(kernel.MedianSq(ws.k, !j.excludeDiag, ws.median), n)
		}
	case phaseExp:
		blocks := (n + dirRowBlock - 1) / dirRowBlock
		if part < blocks {
			raw := ws.k.RawMatrix()
			for i := part * dirRowBlock; i < min((part+1)*dirRowBlock, n); i++ {
				raw.Data[i*raw.Stride+i] = 1
				row := raw.Data[i*raw.Stride+i+1 : i*raw.Stride+n]
				dense.ExpScaled(row, j.c)
				for k, v := range row {
					raw.Data[(i+1+k)*raw.Stride+i] = v
				}
			}
			return
		}
		part -= blocks
		for i := part * dirRowBlock; i < min((part+1)*dirRowBlock, n); i++ {
			dense.SubScaledTo(ws.t.RawRowView(i), j.scores.RawRowView(i), j.inv2, j.x.RawRowView(i))
		}
	case phaseProduct:
		j.product(part)
	}
}

// product is part of the last phase: for the rows of strip part%rowParts
// and the columns of block part/rowParts, dst = K T / n, then
// dst_i += (Σⱼ K_ij) xᵢ / (n h²), then the update of those coordinates.
// The row sums are taken in the order of symGram: the diagonal's 1, then
// the other columns in order.
func (j *dirJob) product(part int) {
	ws := j.ws
	n, d := ws.n, ws.d
	i0 := (part % j.rowParts) * dirStrip
	i1 := min(i0+dirStrip, n)
	if j.rowParts == 1 {
		i1 = n
	}
	c0 := (part / j.rowParts) * j.colBlk
	c1 := min(c0+j.colBlk, d)
	if j.pf != nil {
		j.pf.Prefetch(j.ahead[part*len(j.ahead)/j.parts : (part+1)*len(j.ahead)/j.parts])
	}
	kr, tr, dr := ws.k.RawMatrix(), ws.t.RawMatrix(), j.dst.RawMatrix()
	dense.MulNN(i1-i0, c1-c0, n, j.invN, kr.Data[i0*kr.Stride:], kr.Stride, tr.Data[c0:], tr.Stride, dr.Data[i0*dr.Stride+c0:], dr.Stride)
	var sums [sumGroup]float64
	for i := i0; i < i1; i++ {
		if r := (i - i0) % sumGroup; r == 0 {
			rowSums(sums[:min(sumGroup, i1-i)], kr.Data[i*kr.Stride:], kr.Stride, i, n)
		}
		cf := sums[(i-i0)%sumGroup] * j.inv2 * j.invN
		out := dr.Data[i*dr.Stride+c0 : i*dr.Stride+c1]
		floats.AddScaled(out, cf, j.x.RawRowView(i)[c0:c1]) // out[c] += cf·x[c], unfused
		if u := j.upd; u != nil {
			xr, hr := u.x.RawRowView(i)[c0:c1], u.hist.RawRowView(i)[c0:c1]
			dense.AdaGrad(xr, out, hr, u.eps, u.alpha, u.fudge, u.first)
			// The moved coordinates into Xᵀ for the next direction.
			for c, v := range xr {
				ws.xt[(c0+c)*ws.ldxt+i] = v
			}
		}
	}
}

// rowSums sets dst[r] to the sum of row i0+r of K (rows at k, stride ldk,
// n columns) in the order of symGram's running sums: the diagonal's 1
// first, then the other columns in order. Four rows are summed side by
// side, which overlaps their add chains; their diagonals are the four
// columns i0, …, i0+3, summed around in order.
func rowSums(dst []float64, k []float64, ldk, i0, n int) {
	if len(dst) != 4 {
		for r := range dst {
			row := k[r*ldk : r*ldk+n]
			s := 1.0
			for _, v := range row[:i0+r] {
				s += v
			}
			for _, v := range row[i0+r+1:] {
				s += v
			}
			dst[r] = s
		}
		return
	}
	r0, r1, r2, r3 := k[:n], k[ldk:ldk+n], k[2*ldk:2*ldk+n], k[3*ldk:3*ldk+n]
	s0, s1, s2, s3 := 1.0, 1.0, 1.0, 1.0
	for c := 0; c < i0; c++ {
		s0 += r0[c]
		s1 += r1[c]
		s2 += r2[c]
		s3 += r3[c]
	}
	// Columns i0 … i0+3, each row's own diagonal left out.
	d := i0
	s0 += r0[d+1]
	s0 += r0[d+2]
	s0 += r0[d+3]
	s1 += r1[d]
	s1 += r1[d+2]
	s1 += r1[d+3]
	s2 += r2[d]
	s2 += r2[d+1]
	s2 += r2[d+3]
	s3 += r3[d]
	s3 += r3[d+1]
	s3 += r3[d+2]
	for c := i0 + 4; c < n; c++ {
		s0 += r0[c]
		s1 += r1[c]
		s2 += r2[c]
		s3 += r3[c]
	}
	dst[0], dst[1], dst[2], dst[3] = s0, s1, s2, s3
}

// startDirection is the first half of Direction on team (nil: the caller
// alone), which needs X but not the scores: two jobs, the transpose of X
// (skipped when the previous update wrote it, ws.xtFresh) and the upper
// strips of X Xᵀ (medianDist: with a zero k.H, the bandwidth is the
// median distance h = distScale·√med over the n(n−1)/2 distinct pairs,
// BandwidthParticles). It returns the job whose Run(0) takes the squared
// distances (upper triangle; the median and the exponentials read no
// other) and the median heuristic (phaseMedian), which the caller runs
// alone or beside other work, before finishDirection.
//
// Every element is computed by the same operations in the same order
// whichever goroutine takes its part, so the result has the same bits for
// every team.
func startDirection(team *par.Team, X, scores *mat.Dense, k kernel.RBF, excludeDiag, medianDist bool, distScale float64, ws *Workspace) *dirJob {
	n, d := X.Dims()
	if n != ws.n || d != ws.d {
		panic("svgd: workspace size mismatch")
	}
	if r, c := scores.Dims(); r != n || c != d {
		panic("svgd: scores dimension mismatch")
	}
	if !(k.H >= 0) {
		panic("svgd: negative bandwidth")
	}
	if n*n*d < teamWork {
		team = nil
	}
	j := &ws.job
	*j = dirJob{ws: ws, x: X, scores: scores, team: team, kern: k, excludeDiag: excludeDiag, medianDist: medianDist, distScale: distScale}
	if !ws.xtFresh {
		j.phase = phaseTranspose
		team.Do((d+dirTransposeBlock-1)/dirTransposeBlock, j)
	}
	ws.xtFresh = false
	j.phase = phaseGram
	team.Do((n+dirStrip-1)/dirStrip, j)
	raw := ws.k.RawMatrix()
	for i := 0; i < n; i++ {
		ws.norms[i] = raw.Data[i*raw.Stride+i]
	}
	j.phase = phaseMedian
	return j
}

// finishDirection is the second half of Direction, after the median, on
// the team of startDirection: the
// exponentials with T = S − X/h², then K·T with the diagonal term, in two
// jobs. With a non-nil upd, each block of the direction is followed by the
// AdaGrad step of its coordinates; X is then upd.x and is updated in place,
// each row after its last use. It returns the kernel used.
func finishDirection(dst *mat.Dense, ws *Workspace, upd *adagradStep) kernel.RBF {
	j := &ws.job
	team := j.team
	n, d := ws.n, ws.d
	if r, c := dst.Dims(); r != n || c != d {
		panic("svgd: destination dimension mismatch")
	}
	j.dst, j.upd = dst, upd
	j.inv2 = 1 / (j.kern.H * j.kern.H)
	j.c = -j.inv2 / 2
	j.invN = 1 / float64(n)
	blocks := (n + dirRowBlock - 1) / dirRowBlock
	strips := (n + dirStrip - 1) / dirStrip
	j.phase = phaseExp
	team.Do(2*blocks, j)

	// The product in strips of eight rows when there are enough of them
	// for the team, else in column blocks of whole 16-column panels (the
	// product kernel's widest blocks).
	j.rowParts, j.colBlk = strips, d
	if team.Workers() > 1 && strips < 4*team.Workers() {
		j.rowParts = 1
		j.colBlk = max(16, (d/(4*team.Workers())+15)&^15)
	}
	j.phase = phaseProduct
	j.parts = j.rowParts * ((d + j.colBlk - 1) / j.colBlk)
	team.Do(j.parts, j)
	// Every coordinate was updated by exactly one part, which wrote it
	// into Xᵀ too.
	ws.xtFresh = upd != nil
	k := j.kern
	*j = dirJob{}
	return k
}
