// Command balancemix runs MMD-FW, SVGD, Stein Points and SGLD from their
// zero settings on a two-mode mixture ½·N((−m, 0), I) + ½·N((m, 0), I)
// and prints, per method, N and seed, the set's weight on the right mode
// (x₀ > 0; the target's is ½), the mass-balance test's values
// (balance_weight and balance_mass, on the side of its first group) and
// the flags: how often the test sees a set that splits the mass unevenly.
//
//	go run ./internal/probe/balancemix -m 3 -seeds 100-104
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
	"github.com/mmdfw/mmdfw/pkg/target"
)

type runner interface {
	Run(context.Context, target.Target, particle.Start, rand.Source, particle.Recorder) (particle.Set, error)
}

func main() {
	m := flag.Float64("m", 3, "half the distance between the modes (unit sds)")
	first := flag.Int("first", 100, "first seed")
	seeds := flag.Int("seeds", 5, "number of seeds")
	x0 := flag.Float64("x0", 0.5, "start point's first coordinate (the zero settings start at the MAP from there)")
	flag.Parse()
	mm := *m
	t := target.Func{D: 2, F: func(x, g []float64) float64 {
		a := -0.5 * ((x[0]+mm)*(x[0]+mm) + x[1]*x[1])
		b := -0.5 * ((x[0]-mm)*(x[0]-mm) + x[1]*x[1])
		top := math.Max(a, b)
		lp := top + math.Log(0.5*math.Exp(a-top)+0.5*math.Exp(b-top))
		ra, rb := 0.5*math.Exp(a-lp), 0.5*math.Exp(b-lp)
		g[0] = -ra*(x[0]+mm) - rb*(x[0]-mm)
		g[1] = -x[1]
		return lp
	}}
	fmt.Println("| method | N | seed | particles | weight right | balance_weight | balance_mass | flags | unchecked |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, n := range []int{10, 30, 100} {
		methods := []struct {
			name string
			r    runner
		}{
			{"mmdfw", mmdfw.Settings{N: n}},
			{"svgd", svgd.Settings{N: n}},
			{"sp", sp.Settings{N: n}},
			{"sgld", sgld.Settings{Keep: (n + 3) / 4}},
		}
		for _, me := range methods {
			for s := *first; s < *first+*seeds; s++ {
				set, err := me.r.Run(context.Background(), t, particle.Start{X0: []float64{*x0, 0}}, rand.NewPCG(uint64(s), 1), nil)
				if err != nil {
					fmt.Fprintln(os.Stderr, me.name, n, s, err)
					continue
				}
				var right, tot float64
				for i := range set.Len() {
					w := math.Abs(set.W[i])
					tot += w
					if set.X.At(i, 0) > 0 {
						right += w
					}
				}
				v := set.Diag.Values
				bw, bm := "–", "–"
				if x, ok := v["balance_weight"]; ok {
					bw, bm = fmt.Sprintf("%.3g", x), fmt.Sprintf("%.3g", v["balance_mass"])
				}
				var fl, un []string
				for _, f := range set.Diag.Flags {
					fl = append(fl, f.Code)
				}
				for _, f := range set.Diag.Unchecked {
					un = append(un, f.Code)
				}
				fmt.Printf("| %s | %d | %d | %d | %.3g | %s | %s | %s | %s |\n", me.name, n, s, set.Len(), right/tot, bw, bm,
					strings.Join(fl, ","), strings.Join(un, ","))
			}
		}
	}
}
