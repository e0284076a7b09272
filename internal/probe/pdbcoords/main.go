// Command pdbcoords runs methods from their zero settings (pdbcheck.Methods,
// N = 100, started at the MAP) on one posteriordb posterior and prints,
// per seed, each unconstrained coordinate's weighted mean and sd against
// the reference's (the reference draws mapped through the model's
// Unconstrain), in reference sds, with the set's weights and diagnostics:
// where a set that is off the reference is off.
//
//	go run ./internal/probe/pdbcoords -posterior eight_schools-eight_schools_noncentered -only mmdfw,sp -first-seed 100 -seeds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/pdbcheck"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/posteriordb"
)

func main() {
	names := flag.String("posteriors", "eight_schools-eight_schools_noncentered", "comma-separated posteriors (all: every staged one)")
	ns := flag.String("n", "100", "comma-separated particle counts")
	survey := flag.Bool("survey", false, "one line per run: closeness (the report's bounds at N), the smallest and largest per-coordinate Stein spread, the flags")
	only := flag.String("only", "mmdfw,sp", "comma-separated methods")
	first := flag.Int("first-seed", 100, "first seed (1, 2, … are the reported ones)")
	seeds := flag.Int("seeds", 3, "seeds")
	flag.Parse()
	root, err := pdbcheck.SharedRoot()
	if err != nil {
		fail(err)
	}
	db, err := posteriordb.Open(root)
	if err != nil {
		fail(err)
	}
	list := strings.Split(*names, ",")
	if *names == "all" {
		if list, err = db.Names(); err != nil {
			fail(err)
		}
	}
	for _, name := range list {
		for _, f := range strings.Split(*ns, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				fail(err)
			}
			one(db, name, n, *only, *first, *seeds, *survey)
		}
	}
}

func one(db *posteriordb.DB, name string, n int, only string, first, seeds int, survey bool) {
	p, err := pdbcheck.Load(db, name, posteriordb.CompareSettings{})
	if err != nil {
		fail(err)
	}
	// The reference in the unconstrained coordinates.
	ref := p.Reference
	idx := map[string]int{}
	for j, nm := range ref.Names {
		idx[nm] = j
	}
	R := ref.Len()
	d := p.Dim()
	U := mat.NewDense(R, d, nil)
	c := make([]float64, len(p.Model.Names))
	for i := 0; i < R; i++ {
		for k, nm := range p.Model.Names {
			c[k] = ref.Draws.At(i, idx[nm])
		}
		u, err := p.Model.Unconstrain(nil, c)
		if err != nil {
			fail(err)
		}
		U.SetRow(i, u)
	}
	rm, rs := moments(U, nil)
	q := func(j int, f float64) float64 {
		col := mat.Col(nil, j, U)
		sort.Float64s(col)
		return col[int(f*float64(len(col)-1))]
	}
	if !survey {
		fmt.Printf("reference (unconstrained): ")
		for j := range d {
			fmt.Printf("%s %.3g±%.3g [q01 %.3g q99 %.3g]  ", p.Model.UnconstrainedNames[j], rm[j], rs[j], q(j, 0.01), q(j, 0.99))
		}
		fmt.Println()
	}
	ctx := context.Background()
	if sc, err := laplace.FitAtMAP(ctx, p.Model.Target, p.Init(uint64(first)), laplace.MAPSettings{}, laplace.FitSettings{}); err == nil && !survey {
		fmt.Printf("Laplace fit at the MAP, in reference units (MAP−mean)/sd, sd/ref sd:")
		for j := range d {
			fmt.Printf(" %s %+.2f %.2f", p.Model.UnconstrainedNames[j], (sc.MAP.X[j]-rm[j])/rs[j], sc.Approx.SD[j]/rs[j])
		}
		fmt.Println()
	}
	want := strings.Split(only, ",")
	for _, m := range pdbcheck.Methods(n) {
		if !slices.Contains(want, m.Name) {
			continue
		}
		for s := first; s < first+seeds; s++ {
			x0, _, err := p.MAP(ctx, p.Init(uint64(s)))
			if err != nil {
				fail(err)
			}
			a, b := seedsOf(p, uint64(s))
			set, err := m.Sampler.Run(ctx, p.Model.Target, particle.Start{X0: append([]float64(nil), x0...)}, rand.NewPCG(a, b), nil)
			if err != nil {
				fmt.Printf("%s seed %d: error %v\n", m.Name, s, err)
				continue
			}
			if survey {
				v := spreads(p, set.X, set.W)
				lo, hi := slices.Index(v, slices.Min(v)), slices.Index(v, slices.Max(v))
				dv := func(k string) float64 {
					if v, ok := set.Diag.Values[k]; ok {
						return v
					}
					return math.NaN()
				}
				verdict := "unscored"
				if X, err := p.Constrain(set.X); err == nil {
					sm := p.Cmp.Errors(nil, X, set.W, posteriordb.Own{}).Summary()
					sc := math.Sqrt(100 / float64(n))
					verdict = fmt.Sprintf("off (err %.2f, sd %.2f–%.2f)", sm.MaxMeanErr, sm.MinSDRatio, sm.MaxSDRatio)
					if sm.MaxMeanErr <= 0.5*sc && sm.MinSDRatio >= math.Pow(0.5, sc) && sm.MaxSDRatio <= math.Pow(2, sc) {
						verdict = fmt.Sprintf("close (err %.2f, sd %.2f–%.2f)", sm.MaxMeanErr, sm.MinSDRatio, sm.MaxSDRatio)
					}
				}
				var codes []string
				for _, f := range set.Diag.Flags {
					codes = append(codes, f.Code)
				}
				fmt.Printf("%s\t%s\tN=%d\tseed %d\tn %d\tspread %.3f\tmin %.3f (%s)\tmax %.3f (%s)\tspread_min %.3f\tbound %.3f\tkish %.4g\tksd_ratio %.3g\tksd_size %.4g\t%s\t[%s]\n",
					strings.Split(name, "-")[0], m.Name, n, s, set.Len(), set.Diag.Values["stein_spread"],
					v[lo], p.Model.UnconstrainedNames[lo], v[hi], p.Model.UnconstrainedNames[hi], dv("spread_min"), metric.NarrowBound(dv("kish_ess"), d), dv("kish_ess"),
					set.Diag.Values["ksd_ratio"], set.Diag.Values["ksd_size"], verdict, strings.Join(codes, ","))
				continue
			}
			mu, sd := moments(set.X, set.W)
			fmt.Printf("%s seed %d: n %d, max w %.3g, ", m.Name, s, set.Len(), slices.Max(set.W)/sum(set.W))
			var keys []string
			for k := range set.Diag.Values {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Printf("%s %.4g ", k, set.Diag.Values[k])
			}
			fmt.Println()
			fmt.Printf("   Δmean/sd:")
			for j := range d {
				fmt.Printf(" %+.2f", (mu[j]-rm[j])/rs[j])
			}
			fmt.Printf("\n   sd ratio:")
			for j := range d {
				fmt.Printf(" %.2f", sd[j]/rs[j])
			}
			v := spreads(p, set.X, set.W)
			fmt.Printf("\n   per-coordinate Stein spread:")
			for j := range d {
				fmt.Printf(" %.2f", v[j])
			}
			fmt.Printf("  min %.3f", slices.Min(v))
			col := mat.Col(nil, d-1, set.X)
			fmt.Printf("\n   last coord: min %.3g max %.3g\n", slices.Min(col), slices.Max(col))
			X, err := p.Constrain(set.X)
			if err == nil {
				e := p.Cmp.Errors(nil, X, set.W, posteriordb.Own{})
				fmt.Printf("   constrained |Δmean|/sd:")
				for j, v := range e.MeanErr {
					fmt.Printf(" %s %.2f", ref.Names[j], v)
				}
				fmt.Printf("\n   constrained sd ratio:")
				for j, v := range e.SDRatio {
					fmt.Printf(" %s %.2f", ref.Names[j], v)
				}
				fmt.Println()
			}
		}
	}
}

// seedsOf returns the two seeds of pdbcheck's run of p with seed (a hash
// of the posterior's name, and the seed), so that the sets are those of
// pdbtable.

func seedsOf(p *pdbcheck.Posterior, seed uint64) (uint64, uint64) {
	h := fnv.New64a()
	h.Write([]byte(p.Name))
	return h.Sum64(), seed
}

func sum(w []float64) float64 {
	var s float64
	for _, v := range w {
		s += v
	}
	return s
}

func moments(X *mat.Dense, w []float64) (mu, sd []float64) {
	n, d := X.Dims()
	mu, sd = make([]float64, d), make([]float64, d)
	var tw float64
	for i := range n {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		tw += wi
		for j := range d {
			mu[j] += wi * X.At(i, j)
		}
	}
	for j := range d {
		mu[j] /= tw
	}
	for i := range n {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		for j := range d {
			v := X.At(i, j) - mu[j]
			sd[j] += wi * v * v / tw
		}
	}
	for j := range d {
		sd[j] = math.Sqrt(sd[j])
	}
	return mu, sd
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pdbcoords:", err)
	os.Exit(1)
}

// spreads returns the per-coordinate Stein spread ratios of the weighted
// set: vⱼ = −Σᵢ w̃ᵢ (xᵢⱼ − mⱼ) ∂ⱼlog p(xᵢ), 1 for the target.
func spreads(p *pdbcheck.Posterior, X *mat.Dense, w []float64) []float64 {
	n, d := X.Dims()
	m, _ := moments(X, w)
	tw := sum(w)
	g := make([]float64, d)
	v := make([]float64, d)
	for i := range n {
		p.Model.Target.LogProbGrad(X.RawRowView(i), g)
		for j := range d {
			v[j] -= w[i] / tw * (X.At(i, j) - m[j]) * g[j]
		}
	}
	return v
}
