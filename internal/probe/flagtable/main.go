// Command flagtable prints, for the posteriordb cells of a results
// directory, per method and particle count: the runs, those off the
// reference (not close by the report's bounds, report.PDBClose: at N
// particles |Δ mean| ≤ 0.5·√(100/N) reference sd and every sd ratio in
// [0.5^s, 2^s], s = √(100/N)), those flagged (raw: any flag the method
// raised; counted: the flags the report counts, report.PDBFlags, and of
// those the close ones, false alarms by this measure), the
// silently off (off and not flagged, by the counted flags), among them
// those whose Stein and mode checks ran, and the unchecked runs (the
// Stein or the mode check of the set did not run: the diagnostics list it
// as unchecked, or, in cells made before they did, record no stein_spread
// or no probes value).
//
// With -fixed, off means off by the bounds at 100 particles whatever N:
// |Δ mean| > 0.5 reference sd or an sd ratio outside [0.5, 2].
//
// It is meant for seeds that no report reads, e.g. a scratch run of
// experiments/posteriordb.toml with --set 'splits=[100,101,102]':
//
//	go run ./internal/probe/flagtable -fixed scratch/flags
//
// -v lists the silently off runs with their values.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/experiment"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
)

type key struct {
	method string
	n      int
}

type row struct {
	runs, off, rawFlagged, flagged, flaggedClose, silent, silentChecked, unchecked int
	codes                                                                          map[string]int
}

func final(c *report.Cell, m string) float64 {
	if r, ok := c.Final(m); ok {
		return r.Value
	}
	return math.NaN()
}

// unchecked lists the set checks that did not run on c.
func unchecked(c *report.Cell) []string {
	d := c.Prov.Diagnostics
	var out []string
	if d != nil && len(d.Unchecked) > 0 {
		for _, u := range d.Unchecked {
			if u.Code == "stein" || u.Code == "mode" {
				out = append(out, u.Code)
			}
		}
		return out
	}
	has := func(k string) bool {
		if d == nil {
			return false
		}
		_, ok := d.Values[k]
		return ok
	}
	if !has("stein_spread") {
		out = append(out, "stein")
	}
	if !has("probes") {
		out = append(out, "mode")
	}
	return out
}

func main() {
	verbose := flag.Bool("v", false, "list the silently off runs")
	fixed := flag.Bool("fixed", false, "off: |Δ mean| > 0.5 reference sd or an sd ratio outside [0.5, 2] whatever N (not the report's bounds widened at N < 100)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: flagtable [-v] RESULTS_DIR")
		os.Exit(2)
	}
	res, err := report.Load(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "flagtable:", err)
		os.Exit(1)
	}
	// The kinds' traits say which flags count (report.PDBFlags).
	reg := harness.NewRegistry()
	experiment.Register(reg)
	res.DescribeKinds(reg.Kinds())
	rows := map[key]*row{}
	var silentLines []string
	for _, c := range report.Done(res.Cells) {
		if !strings.HasPrefix(c.Prov.Dataset, "posteriordb.") || c.Prov.Kind == "hmc" {
			continue
		}
		k := key{c.Prov.Method, c.Prov.N}
		r := rows[k]
		if r == nil {
			r = &row{codes: map[string]int{}}
			rows[k] = r
		}
		r.runs++
		e, lo, hi := final(c, "pdb_mean_err"), final(c, "pdb_sd_ratio_min"), final(c, "pdb_sd_ratio_max")
		off := !report.PDBClose(c.Prov.N, e, lo, hi)
		if *fixed {
			off = !report.PDBClose(report.PDBCloseN, e, lo, hi)
		}
		raw := c.Prov.Diagnostics != nil && len(c.Prov.Diagnostics.Flags) > 0
		fl := report.PDBFlags(c)
		un := unchecked(c)
		for _, f := range fl {
			r.codes[f]++
		}
		if off {
			r.off++
		}
		if raw {
			r.rawFlagged++
		}
		if len(fl) > 0 {
			r.flagged++
			if !off {
				r.flaggedClose++
			}
		}
		if len(un) > 0 {
			r.unchecked++
		}
		if off && len(fl) == 0 {
			r.silent++
			if len(un) == 0 {
				r.silentChecked++
			}
			silentLines = append(silentLines, fmt.Sprintf("%s n=%d %s s%d: mean_err %.3g sd [%.3g, %.3g] unchecked %v values %v",
				c.Prov.Method, c.Prov.N, strings.TrimPrefix(c.Prov.Dataset, "posteriordb."), c.Prov.Split, e, lo, hi, un, vals(c)))
		}
	}
	keys := make([]key, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].method != keys[j].method {
			return keys[i].method < keys[j].method
		}
		return keys[i].n < keys[j].n
	})
	fmt.Println("| method | N | runs | off | flagged (raw) | flagged (counted) | of which close | silently off | of which checked | unchecked | counted flags |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, k := range keys {
		r := rows[k]
		var cs []string
		for c, n := range r.codes {
			cs = append(cs, fmt.Sprintf("%s %d", c, n))
		}
		sort.Strings(cs)
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", k.method, k.n, r.runs, r.off, r.rawFlagged, r.flagged,
			r.flaggedClose, r.silent, r.silentChecked, r.unchecked, strings.Join(cs, ", "))
	}
	if *verbose {
		sort.Strings(silentLines)
		fmt.Println()
		for _, l := range silentLines {
			fmt.Println(l)
		}
	}
}

// vals returns a few recorded diagnostic values of c.
func vals(c *report.Cell) string {
	d := c.Prov.Diagnostics
	if d == nil {
		return ""
	}
	var parts []string
	for _, k := range []string{"ksd_size", "ksd_ratio", "stein_spread", "uncovered", "kept_mean_z", "kept_ess_bulk_min", "rhat_max", "score_share", "iterations"} {
		if v, ok := d.Values[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%.3g", k, float64(v)))
		}
	}
	return strings.Join(parts, " ")
}
