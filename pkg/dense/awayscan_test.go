package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// serialAwayScan is AwayScan's documented serial loop.
func serialAwayScan(sup []int, w, g, b, diag, qs []float64, gmin, qss float64) (wg, wb float64, ai int, best float64) {
	ai = -1
	for _, i := range sup {
		wi, gi := w[i], g[i]
		wg += float64(wi * gi)
		wb -= float64(wi * b[i])
		if !(gi > gmin) {
			continue
		}
		dg := gi - gmin
		k := diag[i] + qss - float64(2*qs[i])
		dec := float64(2*wi) * dg
		if k > 0 {
			if dg < float64(wi*k) {
				dec = float64(dg*dg) / k
			} else {
				dec -= float64(float64(wi*wi) * k)
			}
		}
		if dec > best {
			ai, best = i, dec
		}
	}
	return wg, wb, ai, best
}

// TestAwayScan: the vector path and the portable one give the serial
// loop's sums, index and decrease, bit for bit, on supports of every
// length up to 70 and a long one, in random order, with ties (values from
// a few levels, so that equal decreases fall in different lanes, and the
// earlier place in the support must win), ±0, ±Inf and NaN, k ≤ 0, and
// repeated indices.
func TestAwayScan(t *testing.T) {
	defer func(v bool) { useFMA = v }(useFMA)
	rng := rand.New(rand.NewPCG(31, 32))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN()}
	lengths := []int{1000}
	for n := 0; n <= 70; n++ {
		lengths = append(lengths, n)
	}
	checked, chosen, ties := 0, 0, 0
	for _, fma := range []bool{true, false} {
		if fma && !haveFMA {
			continue
		}
		useFMA = fma
		for _, L := range lengths {
			for mode := range 4 {
				m := L + rng.IntN(8)
				draw := func(base float64) float64 {
					switch {
					case mode == 1:
						return base + float64(rng.IntN(3)) // ties
					case mode == 2 && rng.IntN(6) == 0:
						return special[rng.IntN(len(special))]
					default:
						return base + rng.NormFloat64()
					}
				}
				w, g, b, diag, qs := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
				for i := range m {
					w[i] = math.Abs(draw(0)) / float64(max(L, 1))
					g[i], b[i] = draw(0), draw(0)
					diag[i], qs[i] = draw(2), draw(0)
				}
				var sup []int
				if m > 0 {
					sup = rng.Perm(m)[:L]
				}
				if mode == 3 && L > 1 {
					for k := range sup {
						if rng.IntN(4) == 0 {
							sup[k] = sup[rng.IntN(L)] // repeated entries
						}
					}
				}
				gmin := draw(-1)
				if mode == 1 {
					gmin = 0
				}
				qss := draw(2)
				ws := append([]float64(nil), w...)
				wg, wb, ai, best := AwayScan(sup, w, g, b, diag, qs, gmin, qss)
				rg, rb, ri, rbest := serialAwayScan(sup, w, g, b, diag, qs, gmin, qss)
				if !sameFloat(wg, rg) || !sameFloat(wb, rb) || ai != ri || !sameFloat(best, rbest) {
					t.Fatalf("fma %v, L %d, mode %d: got (%v, %v, %d, %v), the serial loop (%v, %v, %d, %v)",
						fma, L, mode, wg, wb, ai, best, rg, rb, ri, rbest)
				}
				for i := range w {
					if !sameFloat(w[i], ws[i]) {
						t.Fatalf("w[%d] changed", i)
					}
				}
				checked++
				if ai >= 0 {
					chosen++
					n := 0
					for _, i := range sup {
						if _, _, _, d := serialAwayScan([]int{i}, w, g, b, diag, qs, gmin, qss); d == best {
							n++
						}
					}
					if n > 1 {
						ties++
					}
				}
			}
		}
	}
	// The cases must exercise the choice and its tie rule.
	if chosen < checked/2 || ties < 20 {
		t.Fatalf("%d cases, %d with a vertex, %d with tied decreases: too few", checked, chosen, ties)
	}
	t.Logf("%d cases, %d with a vertex, %d with tied decreases", checked, chosen, ties)
}

// TestAwayScanRange: an index beyond the shortest vector panics, in the
// vector part and in the tail, on both paths, before anything is read
// there.
func TestAwayScanRange(t *testing.T) {
	defer func(v bool) { useFMA = v }(useFMA)
	v := make([]float64, 4)
	for _, fma := range []bool{true, false} {
		if fma && !haveFMA {
			continue
		}
		useFMA = fma
		for _, c := range []struct {
			sup []int
			qs  []float64
		}{{[]int{0, 1, 2, 3}, v[:3]}, {[]int{0, 1, 2, 0, 3}, v[:3]}, {[]int{-1, 0}, v[:3]}, {[]int{0, 1, 2, 0, 1, 2, 0, -5}, v[:3]},
			{[]int{0, 0, 0, 0}, nil}, {[]int{0}, nil}} {
			sup := c.sup
			func() {
				defer func() {
					if r := recover(); r != errAwayRange {
						t.Errorf("fma %v, sup %v: recovered %v", fma, sup, r)
					}
				}()
				AwayScan(sup, v, v, v, v, c.qs, 0, 0)
			}()
		}
	}
}

// BenchmarkAwayScan is the support pass of one pairwise Frank-Wolfe step:
// a support of 400 of 800 particles in no order.
func BenchmarkAwayScan(b *testing.B) {
	defer func(v bool) { useFMA = v }(useFMA)
	rng := rand.New(rand.NewPCG(33, 34))
	n := 800
	w, g, nb, diag, qs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range g {
		w[j], g[j], nb[j] = rng.Float64(), rng.NormFloat64(), rng.NormFloat64()
		diag[j], qs[j] = 2+rng.Float64(), rng.NormFloat64()
	}
	sup := rng.Perm(n)[:n/2]
	var sink float64
	for _, path := range []string{"avx2", "serial"} {
		if path == "avx2" && !haveFMA {
			continue
		}
		b.Run(path, func(b *testing.B) {
			useFMA = path == "avx2"
			for b.Loop() {
				wg, _, _, _ := AwayScan(sup, w, g, nb, diag, qs, -1, 2)
				sink += wg
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(sup)), "ns/entry")
		})
	}
	_ = sink
}
