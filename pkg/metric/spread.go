package metric

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// The rule of the directional spread test (SpreadSpectrum, DiagnoseNarrow);
// docs/DECISIONS.md ("A set narrow along one direction") gives the
// measurements behind it.
const (
	// NarrowRatio is the fraction of independent draws' smallest spread
	// eigenvalue below which a set is flagged "narrow": the set's variance
	// along some direction is less than NarrowRatio·(1 − √(d/n))² of the
	// target's, where n independent draws reach (1 − √(d/n))². Measured on
	// seeds no report reads, the smallest eigenvalue over that edge is at
	// least 1.25 on every set of MMD-FW and Stein Points close to a
	// posteriordb reference and 0.91 on the known targets they pass, and at
	// most 0.23 on their eight-schools sets at N = 100 (μ at 0.2–0.45 of
	// its sd): 0.5 lies in the gap, a factor of about 2 from either side.
	NarrowRatio = 0.5
	// NarrowMinESS is the smallest Kish's ESS, per dimension, at which the
	// test is made: with fewer effective points the set's covariance is
	// near singular whatever the target (MMD-FW's Stein weights put
	// (near) zero weight on some of its particles), and independent draws'
	// smallest eigenvalue is itself near 0.
	NarrowMinESS = 2
	// MaxSpreadDim bounds the dimension of the test (its cost is
	// O(n·d² + d³)); above it no spectrum is computed.
	MaxSpreadDim = 200
)

// SpreadSpectrum returns the smallest and largest eigenvalues of the
// symmetric part of the Stein spread matrix of a weighted set in the set's
// own whitened coordinates,
//
//	M = −Σᵢ w̃ᵢ zᵢ (Lᵀsᵢ)ᵀ,  zᵢ = L⁻¹(xᵢ − m),  LLᵀ = C = Σᵢ w̃ᵢ (xᵢ − m)(xᵢ − m)ᵀ,
//
// with w̃ = w/Σw, m the w̃-weighted mean and sᵢ = ∇log p(xᵢ) (row i of S).
// The Stein identity E_p[(x − m)∇log pᵀ] = −I makes M the identity for
// the target itself; for a Gaussian target of covariance Σ, M = LᵀΣ⁻¹L,
// whose eigenvalues are those of CΣ⁻¹, the set's variance over the
// target's along the target's principal axes. The trace of M over d is the
// Stein spread ratio of DiagnoseSet; its extreme eigenvalues say whether
// the set is narrow or wide along some direction, which the mean can hide
// (a set collapsed in one coordinate of ten). The spectrum does not depend
// on the coordinates: an invertible affine map of x changes C and the
// scores so that M is unchanged.
//
// ok is false, and no spectrum is computed, when a weight is negative or
// they sum to zero, when n ≤ d or d > MaxSpreadDim, or when C is singular.
// X is n×d, S holds the scores of X's rows in the same order.
func SpreadSpectrum(X *mat.Dense, w []float64, S *mat.Dense) (lo, hi float64, ok bool) {
	n, d := X.Dims()
	if n <= d || d > MaxSpreadDim || len(w) != n {
		return 0, 0, false
	}
	if sn, sd := S.Dims(); sn != n || sd != d {
		panic("metric: SpreadSpectrum: scores and points differ in shape")
	}
	var tw float64
	for _, v := range w {
		if !(v >= 0) {
			return 0, 0, false
		}
		tw += v
	}
	if !(tw > 0) {
		return 0, 0, false
	}
	m := make([]float64, d)
	for i := range n {
		c := w[i] / tw
		for j, v := range X.RawRowView(i) {
			m[j] += c * v
		}
	}
	// The weighted covariance C and its Cholesky factor L.
	D := mat.NewDense(n, d, nil) // √w̃ᵢ (xᵢ − m)
	for i := range n {
		c := math.Sqrt(w[i] / tw)
		row := D.RawRowView(i)
		for j, v := range X.RawRowView(i) {
			row[j] = c * (v - m[j])
		}
	}
	C := mat.NewSymDense(d, nil)
	C.SymOuterK(1, D.T())
	var ch mat.Cholesky
	if !ch.Factorize(C) {
		return 0, 0, false
	}
	var L mat.TriDense
	ch.LTo(&L)
	// M = −Σᵢ w̃ᵢ zᵢ gᵢᵀ with zᵢ = L⁻¹(xᵢ − m), gᵢ = Lᵀsᵢ: with the rows
	// of A = diag(w̃)(X − 1mᵀ) and the scores S, M = −L⁻¹ AᵀS L.
	A := mat.NewDense(n, d, nil)
	for i := range n {
		c := w[i] / tw
		row := A.RawRowView(i)
		for j, v := range X.RawRowView(i) {
			row[j] = c * (v - m[j])
		}
	}
	var B, P mat.Dense
	B.Mul(A.T(), S) // Σᵢ w̃ᵢ (xᵢ − m) sᵢᵀ
	P.Mul(&B, &L)
	var M mat.Dense
	if err := M.Solve(&L, &P); err != nil {
		return 0, 0, false
	}
	sym := mat.NewSymDense(d, nil)
	for a := range d {
		for b := a; b < d; b++ {
			sym.SetSym(a, b, -(M.At(a, b)+M.At(b, a))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, false) {
		return 0, 0, false
	}
	v := es.Values(nil)
	lo, hi = slices.Min(v), slices.Max(v)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return 0, 0, false
	}
	return lo, hi, true
}

// NarrowBound returns the smallest spread eigenvalue (SpreadSpectrum's lo)
// that a set of ess effective points (Kish's) in d dimensions is returned
// with unflagged: NarrowRatio·(1 − √(d/ess))², half the lower edge
// of the Marchenko–Pastur law, near which the smallest eigenvalue of CΣ⁻¹
// lies for ess independent draws of a Gaussian target. It is 0 for
// ess ≤ d.
func NarrowBound(ess float64, d int) float64 {
	if !(ess > float64(d)) {
		return 0
	}
	r := 1 - math.Sqrt(float64(d)/ess)
	return NarrowRatio * r * r
}

// DiagnoseNarrow records in dg the extreme eigenvalues of the spread
// matrix of the set (SpreadSpectrum) as spread_min and spread_max, and,
// when Kish's ESS of the weights is at least NarrowMinESS·d, flags the set
// "narrow" if spread_min is below NarrowBound(ESS, d): a
// direction along which the set's variance is a small fraction of the
// target's, which a mean over the directions (the Stein spread ratio) and
// a kernel Stein discrepancy whose kernel is wide along it both miss.
// method prefixes the flag's reason ("mmdfw", "sp"). It records "narrow"
// as unchecked (particle.Diagnostics.Unchecked) when SpreadSpectrum has no
// spectrum or the ESS is below NarrowMinESS·d.
func DiagnoseNarrow(dg *particle.Diagnostics, method string, X *mat.Dense, w []float64, S *mat.Dense) {
	lo, hi, ok := SpreadSpectrum(X, w, S)
	if !ok {
		dg.Skip("narrow", "%s: no spread spectrum of the set (too few particles for its dimension, or too many dimensions)", method)
		return
	}
	dg.Set("spread_min", lo)
	dg.Set("spread_max", hi)
	_, d := X.Dims()
	ess := particle.Set{W: w}.ESS()
	if !(ess >= NarrowMinESS*float64(d)) {
		dg.Skip("narrow", "%s: Kish's ESS %.3g of the weights is below %d × %d dimensions: the set's covariance is near singular whatever the target",
			method, ess, NarrowMinESS, d)
		return
	}
	if b := NarrowBound(ess, d); lo < b {
		dg.Raise("narrow", "%s: along one direction the set's spread is %.3g of the target's by the Stein identity "+
			"(the smallest eigenvalue of −E[(x−m)∇log pᵀ] in the set's whitened coordinates, 1 for the target), "+
			"below %.3g, half what %.3g independent draws in %d dimensions reach: the set is too narrow there",
			method, lo, b, ess, d)
	}
}
