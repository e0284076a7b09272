// Command pdbtable runs the module's samplers on posteriordb's staged
// posteriors (../shared/posteriordb, or -root) and prints their errors
// against the reference draws (internal/pdbcheck).
//
// With -hmc, pkg/hmc in its default settings (4 chains, 1000 warm-up
// iterations, 1000 draws), chains started around the model's Init point,
// on every posterior: the largest |Δ mean| / combined MCSE, the range of the
// sd ratios, the largest R̂, the smallest bulk ESS, the divergences, the
// adapted step sizes, the gradient evaluations, the seconds and the verdict
// (pass: every |Δ mean| ≤ 4 combined MCSE and every sd ratio in
// [0.9, 1.1]).
//
// With -methods, every method (MMD-FW, SVGD, Stein Points, SGLD, HMC) from
// its zero settings with N = 100 particles where it takes a count, from two
// start points (the model's Init point and the L-BFGS mode of the
// unconstrained target found from it) and three seeds, each run bounded by
// -timeout: per posterior, method and start, over the seeds, the largest
// |Δ mean| / reference sd, the range of the sd ratios, the largest MMD² on
// standardised draws (with the reference's floor), the median gradient
// evaluations (the MAP search's included) and seconds, and the verdicts
// (close, flagged, error, timeout or WRONG: a silently wrong answer), then
// the verdicts at a glance. -v prints one line per run.
//
//	go run ./internal/probe/pdbtable -hmc
//	go run ./internal/probe/pdbtable -methods
//	go run ./internal/probe/pdbtable -methods -only svgd,sgld -posteriors sblrc-blr -seeds 1
//
// -first-seed moves the seeds to first, first+1, …: the seeds 1, 2, …
// are those the benchmark's reports read (experiments/posteriordb.toml's
// splits), so a setting is chosen on others (e.g. -first-seed 100).
// -svgd-bandwidths replaces the methods by SVGD (zero settings otherwise)
// under each of the listed bandwidth rules: "laplace" (the Laplace fit's
// frozen width), "h=V" (a fixed width V in whitened units) and "c=V" (the
// particles' rule with h² = V·med/2; c = 2 is the median distance, the
// zero value):
//
//	go run ./internal/probe/pdbtable -methods -starts map -seeds 12 -first-seed 100 \
//		-posteriors eight_schools-eight_schools_noncentered \
//		-svgd-bandwidths laplace,h=1.5,h=5,h=10,c=0.5,c=0.7,c=1,c=1.5,c=2
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mmdfw/mmdfw/internal/pdbcheck"
	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/posteriordb"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

func main() {
	root := flag.String("root", "", "posteriordb folder (default: ../shared/posteriordb beside the module)")
	runHMC := flag.Bool("hmc", false, "validate pkg/hmc's default settings on every posterior")
	runMethods := flag.Bool("methods", false, "every method from its zero settings on every posterior")
	posts := flag.String("posteriors", "", "comma-separated posteriors (default all)")
	only := flag.String("only", "", "comma-separated methods for -methods (default all: "+strings.Join(methodNames(), ",")+")")
	starts := flag.String("starts", "init,map", "comma-separated start points for -methods (init, map)")
	seeds := flag.Int("seeds", 3, "seeds per run for -methods (1, 2, …)")
	firstSeed := flag.Int("first-seed", 1, "first seed of -methods (seeds first, first+1, …; 1, 2, … are the reported ones)")
	svgdBW := flag.String("svgd-bandwidths", "", "comma-separated SVGD bandwidth rules for -methods, replacing the methods: laplace, h=V (fixed, whitened units), c=V (h² = V·med/2)")
	seed := flag.Uint64("seed", 1, "seed of the -hmc runs")
	timeout := flag.Duration("timeout", 60*time.Second, "bound on each -methods run")
	mmdDraws := flag.Int("mmd-draws", 0, "reference draws in the MMD² (0: all)")
	verbose := flag.Bool("v", false, "print one line per -methods run as well")
	flag.Parse()
	if !*runHMC && !*runMethods {
		fmt.Fprintln(os.Stderr, "pdbtable: give -hmc, -methods or both")
		os.Exit(2)
	}
	if *root == "" {
		r, err := pdbcheck.SharedRoot()
		if err != nil {
			fail(err)
		}
		*root = r
	}
	db, err := posteriordb.Open(*root)
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
	load := func(name string) *pdbcheck.Posterior {
		p, err := pdbcheck.Load(db, name, posteriordb.CompareSettings{MMDDraws: *mmdDraws})
		if err != nil {
			fail(err)
		}
		return p
	}
	if *runHMC {
		tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "posterior\td\tmax z\tsd ratio\tmax R̂\tmin ESS\tdiv\tstep size\tsteps\tgrad evals\ts\tverdict\t")
		for _, name := range names {
			p := load(name)
			r, err := p.RunHMC(ctx, nil, hmc.Settings{}, *seed)
			if err != nil {
				fmt.Fprintf(tw, "%s\t%d\terror: %v\t\n", name, p.Dim(), err)
				continue
			}
			ok, why := r.Pass()
			v := "pass"
			if !ok {
				v = "FAIL"
			}
			if r.Flagged {
				v += " (flagged)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.3f–%.3f\t%.4f\t%.0f\t%d\t%.3g–%.3g\t%.1f\t%d\t%.1f\t%s\t\n", name, p.Dim(),
				r.Summary.MaxMeanZ, r.Summary.MinSDRatio, r.Summary.MaxSDRatio, r.MaxRhat, r.MinESS, r.Divergences,
				r.MinStep, r.MaxStep, r.MeanSteps, r.GradEvals, r.Seconds, v)
			fmt.Fprintf(os.Stderr, "%s: %s in %.1f s\n", name, v, r.Seconds)
			if !ok {
				fmt.Fprintf(os.Stderr, "%s: %s\n", name, why)
			}
			if r.Flagged {
				fmt.Fprintf(os.Stderr, "%s: flagged: %s\n", name, strings.Join(r.Reasons, "; "))
			}
		}
		tw.Flush()
	}
	if *runMethods {
		if *runHMC {
			fmt.Println()
		}
		ms := pdbcheck.Methods(100)
		if *svgdBW != "" {
			var err error
			if ms, err = svgdBandwidths(*svgdBW, 100); err != nil {
				fail(err)
			}
		} else if *only != "" {
			want := strings.Split(*only, ",")
			ms = slices.DeleteFunc(ms, func(m pdbcheck.Method) bool { return !slices.Contains(want, m.Name) })
			if len(ms) != len(want) {
				fail(fmt.Errorf("pdbtable: -only %q names a method not in %v", *only, methodNames()))
			}
		}
		var ss []pdbcheck.Start
		for _, s := range strings.Split(*starts, ",") {
			switch pdbcheck.Start(s) {
			case pdbcheck.StartInit, pdbcheck.StartMAP:
				ss = append(ss, pdbcheck.Start(s))
			default:
				fail(fmt.Errorf("pdbtable: unknown start %q (init, map)", s))
			}
		}
		summary := map[string]map[string]string{}
		tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "posterior\tmethod\tstart\tmax |Δm|/sd\tsd ratio\tMMD²\tfloor\tgrad evals\ts\tverdicts\tnote\t")
		for _, name := range names {
			p := load(name)
			for _, st := range ss {
				x0s := make([][]float64, *seeds)
				mapCost := make([]int64, *seeds)
				var mapErr error
				for k := range x0s {
					x0s[k] = p.Init(uint64(k + *firstSeed))
					if st == pdbcheck.StartMAP {
						x0s[k], mapCost[k], mapErr = p.MAP(ctx, x0s[k])
						if mapErr != nil {
							break
						}
					}
				}
				for _, m := range ms {
					if mapErr != nil {
						fmt.Fprintf(tw, "%s\t%s\t%s\terror: %v\t\n", name, m.Name, st, mapErr)
						continue
					}
					var rs []pdbcheck.RunResult
					for k := range x0s {
						r := p.RunMethod(ctx, m, st, x0s[k], uint64(k+*firstSeed), *timeout)
						r.StartGradEvals = mapCost[k]
						rs = append(rs, r)
						fmt.Fprintf(os.Stderr, "%s %s %s seed %d: %s in %.1f s, %d grad evals", name, m.Name, st, k+*firstSeed, r.Judge(), r.Seconds, r.GradEvals+r.StartGradEvals)
						if r.Errors != nil {
							fmt.Fprintf(os.Stderr, ", max |Δm|/sd %.3g, sd ratio %.3g–%.3g, MMD² %.3g", r.Summary.MaxMeanErr, r.Summary.MinSDRatio, r.Summary.MaxSDRatio, r.Summary.MMD2)
						}
						if n := note(r); n != "" {
							fmt.Fprintf(os.Stderr, ": %s", n)
						}
						fmt.Fprintln(os.Stderr)
						if *verbose {
							writeRow(tw, name, m.Name, st, []pdbcheck.RunResult{r}, p.Cmp.Floor.MMD2)
						}
					}
					if !*verbose || len(rs) > 1 {
						writeRow(tw, name, m.Name, st, rs, p.Cmp.Floor.MMD2)
					}
					if summary[name] == nil {
						summary[name] = map[string]string{}
					}
					summary[name][m.Name+" "+string(st)] = verdictCodes(rs)
				}
			}
		}
		tw.Flush()
		// The verdicts at a glance: a column per method and start, each
		// cell the verdicts of the seeds counted.
		fmt.Println()
		fmt.Println("verdicts per seed: C close, c close but flagged, F flagged, E error, T timeout, W WRONG (silently wrong)")
		tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "posterior")
		for _, m := range ms {
			for _, st := range ss {
				fmt.Fprintf(tw, "\t%s %s", m.Name, st)
			}
		}
		fmt.Fprintln(tw, "\t")
		for _, name := range names {
			fmt.Fprint(tw, name)
			for _, m := range ms {
				for _, st := range ss {
					fmt.Fprintf(tw, "\t%s", summary[name][m.Name+" "+string(st)])
				}
			}
			fmt.Fprintln(tw, "\t")
		}
		tw.Flush()
	}
}

// svgdBandwidths returns SVGD with n particles under each bandwidth rule
// of the comma-separated list (see the command's documentation).
func svgdBandwidths(list string, n int) ([]pdbcheck.Method, error) {
	var ms []pdbcheck.Method
	for _, r := range strings.Split(list, ",") {
		var s svgd.Settings
		switch {
		case r == "laplace":
			s.BandwidthRule = svgd.BandwidthLaplace
		case strings.HasPrefix(r, "h="), strings.HasPrefix(r, "c="):
			v, err := strconv.ParseFloat(r[2:], 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("pdbtable: -svgd-bandwidths: %q: want a positive number after %q", r, r[:2])
			}
			if r[0] == 'h' {
				s.Bandwidth = v
			} else {
				s.BandwidthRule, s.BandwidthScale = svgd.BandwidthParticles, math.Sqrt(v/2)
			}
		default:
			return nil, fmt.Errorf("pdbtable: -svgd-bandwidths: unknown rule %q (laplace, h=V, c=V)", r)
		}
		s.N = n
		ms = append(ms, pdbcheck.Method{Name: "svgd[" + r + "]", Sampler: s})
	}
	return ms, nil
}

// verdictCodes counts the verdicts of runs in one letter each ("3W",
// "1E 2W").
func verdictCodes(rs []pdbcheck.RunResult) string {
	codes := []struct {
		v pdbcheck.Verdict
		c string
	}{{pdbcheck.Close, "C"}, {pdbcheck.FlaggedClose, "c"}, {pdbcheck.Flagged, "F"}, {pdbcheck.Errored, "E"}, {pdbcheck.TimedOut, "T"}, {pdbcheck.Wrong, "W"}}
	count := map[pdbcheck.Verdict]int{}
	for _, r := range rs {
		count[r.Judge()]++
	}
	var out []string
	for _, c := range codes {
		if count[c.v] > 0 {
			out = append(out, fmt.Sprintf("%d%s", count[c.v], c.c))
		}
	}
	return strings.Join(out, " ")
}

// writeRow writes the row of one posterior, method and start over its
// runs: the worst errors over the scored runs, the median cost and the
// verdicts counted.
func writeRow(tw *tabwriter.Writer, name, method string, st pdbcheck.Start, rs []pdbcheck.RunResult, floor float64) {
	worst := posteriordb.Summary{MaxMeanErr: math.Inf(-1), MinSDRatio: math.Inf(1), MaxSDRatio: math.Inf(-1), MMD2: math.Inf(-1)}
	scored := 0
	var grads, secs []float64
	count := map[pdbcheck.Verdict]int{}
	var notes []string
	for _, r := range rs {
		count[r.Judge()]++
		grads = append(grads, float64(r.GradEvals+r.StartGradEvals))
		secs = append(secs, r.Seconds)
		if n := note(r); n != "" && !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
		if r.Errors == nil {
			continue
		}
		scored++
		s := r.Summary
		worst.MaxMeanErr = nanMax(worst.MaxMeanErr, s.MaxMeanErr)
		worst.MinSDRatio = nanMin(worst.MinSDRatio, s.MinSDRatio)
		worst.MaxSDRatio = nanMax(worst.MaxSDRatio, s.MaxSDRatio)
		worst.MMD2 = nanMax(worst.MMD2, s.MMD2)
	}
	scores := "–\t–\t–"
	if scored > 0 {
		scores = fmt.Sprintf("%.3g\t%.3g–%.3g\t%.3g", worst.MaxMeanErr, worst.MinSDRatio, worst.MaxSDRatio, worst.MMD2)
	}
	var vs []string
	for _, v := range []pdbcheck.Verdict{pdbcheck.Close, pdbcheck.FlaggedClose, pdbcheck.Flagged, pdbcheck.Errored, pdbcheck.TimedOut, pdbcheck.Wrong} {
		if count[v] > 0 {
			vs = append(vs, fmt.Sprintf("%d %s", count[v], v))
		}
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2g\t%.3g\t%.1f\t%s\t%s\t\n", name, method, st, scores, floor,
		median(grads), median(secs), strings.Join(vs, ", "), strings.Join(notes[:min(len(notes), 1)], ""))
}

// note is a run's error or flag reason on one line, shortened.
func note(r pdbcheck.RunResult) string {
	var s string
	switch {
	case r.Timeout:
		return ""
	case r.Err != nil:
		s = r.Err.Error()
	case r.Bad != "":
		s = r.Bad
	case r.Flagged:
		s = "flag: " + r.Reason
	}
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > 90 {
		s = string(r[:87]) + "..."
	}
	return s
}

func methodNames() []string {
	var out []string
	for _, m := range pdbcheck.Methods(100) {
		out = append(out, m.Name)
	}
	return out
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	y := slices.Clone(x)
	sort.Float64s(y)
	return y[len(y)/2]
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pdbtable:", err)
	os.Exit(1)
}
