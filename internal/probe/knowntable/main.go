// Command knowntable runs every method of the module from its zero
// settings plus a start point on every known target of samplertest
// (KnownTargets) and prints the table of samplertest.WriteKnownTable: per
// method and target the largest mean error in standard deviations, the
// range of the variance ratios, the largest correlation error, the
// probabilities against their exact values, the run's steps, gradients and
// seconds, and the verdict (pass, flagged, error or FAIL). A last table
// gives each method's verdicts and seconds in total.
//
//	go run ./internal/probe/knowntable                       # everything (make known-table)
//	go run ./internal/probe/knowntable -methods svgd,sgld -targets gauss5,mix1
//	go run ./internal/probe/knowntable -seed 7               # fresh randomness
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// methods are the module's methods in their zero settings with a start
// point, as their known_test.go files run them.
var methods = []struct {
	name string
	m    samplertest.Method
}{
	{"mmdfw", samplertest.Method{Zero: mmdfw.Settings{}}},
	{"svgd", samplertest.Method{Zero: svgd.Settings{}}},
	{"sp", samplertest.Method{Zero: sp.Settings{}}},
	{"sgld", samplertest.Method{Zero: sgld.Settings{}}},
	{"hmc", samplertest.Method{Zero: hmc.Settings{}}},
}

func main() {
	only := flag.String("methods", "", "comma-separated methods (default all: mmdfw,svgd,sp,sgld,hmc)")
	targets := flag.String("targets", "", "comma-separated known targets (default all)")
	seed := flag.Uint64("seed", 0, "seed mixed into every target's source (0: the suite's)")
	flag.Parse()
	ks := samplertest.KnownTargets()
	if *targets != "" {
		ks = nil
		for _, name := range strings.Split(*targets, ",") {
			k := samplertest.KnownTargetByName(name)
			if k == nil {
				fmt.Fprintf(os.Stderr, "knowntable: no known target %q\n", name)
				os.Exit(2)
			}
			ks = append(ks, k)
		}
	}
	want := map[string]bool{}
	for _, name := range strings.Split(*only, ",") {
		if name != "" {
			want[name] = true
		}
	}
	seen := map[string]bool{}
	var rows []samplertest.KnownRow
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	var totals []string
	for _, m := range methods {
		if len(want) > 0 && !want[m.name] {
			continue
		}
		seen[m.name] = true
		var secs float64
		count := map[samplertest.Verdict]int{}
		for _, k := range ks {
			r := samplertest.RunKnown(context.Background(), m.m, k, *seed)
			fmt.Fprintf(os.Stderr, "%s %s: %v in %.1f s\n", m.name, k.Name, r.Verdict, r.Seconds)
			rows = append(rows, samplertest.KnownRow{Method: m.name, Result: r})
			secs += r.Seconds
			count[r.Verdict]++
		}
		totals = append(totals, fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%.1f", m.name, count[samplertest.Pass],
			count[samplertest.Flagged], count[samplertest.Errored], count[samplertest.Fail], secs))
	}
	for name := range want {
		if !seen[name] {
			fmt.Fprintf(os.Stderr, "knowntable: no method %q\n", name)
			os.Exit(2)
		}
	}
	if err := samplertest.WriteKnownTable(os.Stdout, rows); err != nil {
		fmt.Fprintln(os.Stderr, "knowntable:", err)
		os.Exit(1)
	}
	fmt.Println()
	fmt.Fprintln(tw, "method\tpass\tflagged\terror\tFAIL\ts")
	for _, l := range totals {
		fmt.Fprintln(tw, l)
	}
	tw.Flush()
}
