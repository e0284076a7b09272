// Command sgldkept diagnoses SGLD's kept draws on posteriordb's staged
// posteriors (../shared/posteriordb): per posterior and seed, SGLD from its
// zero settings and the MAP, as experiments/posteriordb.toml runs it, with
// the set the last ⌈N/4⌉ draws of each of its 4 chains. It prints the set's
// error against the reference (the largest |Δ mean| / reference sd and the
// sd ratios), the set's own diagnostics of its kept draws (bulk ESS and
// split-R̂ over the chains, the smallest and the largest over the
// coordinates, and kept_mean_z, the distance to the monitored draws' mean
// in standard errors of n independent draws, with z/√n in sd), the same
// error against the reference of every monitored draw (the chains' second
// halves: a step-size bias shows there, the kept draws' variance does
// not), the set's flags and the verdict with the closeness bounds widened
// by √(100/N) (OFF, SILENT: neither close nor flagged).
//
//	go run ./internal/probe/sgldkept -posteriors sblrc-blr -first-seed 100 -seeds 10
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mmdfw/mmdfw/internal/pdbcheck"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/posteriordb"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/target"
)

func main() {
	posts := flag.String("posteriors", "", "comma-separated posteriors (default all)")
	n := flag.Int("n", 100, "particles N (the set: the last ⌈N/4⌉ draws of each chain)")
	seeds := flag.Int("seeds", 10, "seeds per posterior")
	first := flag.Int("first-seed", 100, "first seed (1, 2, … are the reported ones)")
	flag.Parse()
	root, err := pdbcheck.SharedRoot()
	if err != nil {
		fail(err)
	}
	db, err := posteriordb.Open(root)
	if err != nil {
		fail(err)
	}
	names, err := db.Names()
	if err != nil {
		fail(err)
	}
	if *posts != "" {
		names = strings.Split(*posts, ",")
	}
	ctx := context.Background()
	keep := (*n + sgld.DefaultChains - 1) / sgld.DefaultChains
	w := math.Sqrt(100 / float64(*n)) // the closeness bounds' widening
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "posterior\tseed\tmean err\tsd ratio\tkept ESS\tkept R̂\tz\tz/√n\tmonitored: mean err\tdraws\tESS\tflags\tverdict\t")
	for _, name := range names {
		p, err := pdbcheck.Load(db, name, posteriordb.CompareSettings{})
		if err != nil {
			fail(err)
		}
		for k := range *seeds {
			seed := uint64(*first + k)
			x0, _, err := p.MAP(ctx, p.Init(seed))
			if err != nil {
				fail(err)
			}
			var set, all particle.Set
			m := pdbcheck.Method{Name: "sgld", Sampler: kept{keep: keep, set: &set, all: &all}}
			r := p.RunMethod(ctx, m, pdbcheck.StartMAP, x0, seed, 5*time.Minute)
			if r.Err != nil {
				fmt.Fprintf(tw, "%s\t%d\terror: %v\t\n", name, seed, r.Err)
				continue
			}
			X, err := p.Constrain(all.X)
			if err != nil {
				fail(err)
			}
			ea := p.Cmp.Errors(nil, X, all.W, posteriordb.Own{}).Summary()
			s := r.Summary
			close := s.MaxMeanErr <= pdbcheck.CloseMeanErr*w && s.MinSDRatio >= math.Pow(pdbcheck.CloseSDLo, w) && s.MaxSDRatio <= math.Pow(pdbcheck.CloseSDHi, w)
			v := map[[2]bool]string{{true, false}: "close", {true, true}: "close, flagged", {false, true}: "flagged", {false, false}: "OFF, SILENT"}[[2]bool{close, r.Flagged}]
			dv := set.Diag.Values
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.2f–%.2f\t%.1f\t%.3f\t%.2f\t%.3f\t%.3f\t%d\t%.0f\t%s\t%s\t\n", name, seed,
				s.MaxMeanErr, s.MinSDRatio, s.MaxSDRatio, dv["kept_ess_bulk_min"], dv["kept_rhat_max"], dv["kept_mean_z"],
				dv["kept_mean_z"]/math.Sqrt(float64(set.Len())), ea.MaxMeanErr, all.Len(), all.Diag.Values["ess_bulk_min"], flags(r.Reason), v)
		}
		tw.Flush()
	}
}

// kept runs SGLD from its zero settings without a cap, keeps that set in
// all and returns the last keep draws of each chain.
type kept struct {
	keep     int
	set, all *particle.Set
}

func (k kept) Run(ctx context.Context, t target.Target, start particle.Start, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	again := *src.(*rand.PCG) // the same stream for the uncapped run
	s := sgld.Settings{Keep: k.keep}
	set, err := sampler.Set(sgld.Run(ctx, t, start, s, src, rec))
	*k.set = set
	if err != nil {
		return set, err
	}
	// The same chains without the cap (Keep does not change them with
	// the monitor "all"): every draw of their second halves.
	s.Keep = 0
	*k.all, err = sampler.Set(sgld.Run(ctx, t, start, s, &again, nil))
	return set, err
}

// flags returns the flags' names of a reason ("name: …; name: …").
func flags(reason string) string {
	var fs []string
	for _, r := range strings.Split(reason, "; ") {
		if i := strings.Index(r, ":"); i > 0 {
			fs = append(fs, r[:i])
		}
	}
	return strings.Join(fs, ",")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sgldkept:", err)
	os.Exit(1)
}
