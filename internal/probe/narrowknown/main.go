// Command narrowknown prints, for MMD-FW and Stein Points from their zero
// settings on every known target of samplertest and each seed, the
// directional spread test of metric.DiagnoseNarrow: the smallest spread
// eigenvalue (spread_min), its bound at the set's Kish ESS, and the
// verdict of the run, with the set's ksd_ratio (sp.MaxKSDRatio's), so that the margin of the "narrow" flag on targets
// whose answer is known can be read.
//
//	go run ./internal/probe/narrowknown -methods mmdfw -seeds 100,101,102
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/sampler/samplertest"
	"github.com/mmdfw/mmdfw/pkg/sp"
)

func main() {
	only := flag.String("methods", "mmdfw,sp", "comma-separated methods (mmdfw, sp)")
	targets := flag.String("targets", "", "comma-separated known targets (default all)")
	seeds := flag.String("seeds", "0", "comma-separated seeds mixed into every target's source")
	flag.Parse()
	methods := map[string]samplertest.Method{
		"mmdfw": {Zero: mmdfw.Settings{}},
		"sp":    {Zero: sp.Settings{}},
	}
	ks := samplertest.KnownTargets()
	if *targets != "" {
		ks = nil
		for _, name := range strings.Split(*targets, ",") {
			k := samplertest.KnownTargetByName(name)
			if k == nil {
				fmt.Fprintf(os.Stderr, "narrowknown: no known target %q\n", name)
				os.Exit(2)
			}
			ks = append(ks, k)
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\ttarget\tseed\tn\tkish\tspread_min\tbound\tnarrow\tksd_ratio\tverdict\t")
	for _, name := range strings.Split(*only, ",") {
		m, ok := methods[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "narrowknown: no method %q\n", name)
			os.Exit(2)
		}
		for _, k := range ks {
			for _, f := range strings.Split(*seeds, ",") {
				seed, err := strconv.ParseUint(f, 10, 64)
				if err != nil {
					fmt.Fprintln(os.Stderr, "narrowknown:", err)
					os.Exit(2)
				}
				r := samplertest.RunKnown(context.Background(), m, k, seed)
				if r.Err != nil {
					fmt.Fprintf(tw, "%s\t%s\t%d\t-\t-\t-\t-\t-\t-\terror\t\n", name, k.Name, seed)
					continue
				}
				_, d := r.Set.X.Dims()
				lo, ok := r.Set.Diag.Values["spread_min"]
				sm, b := "-", "-"
				if ok {
					sm = fmt.Sprintf("%.3g", lo)
					b = fmt.Sprintf("%.3g", metric.NarrowBound(r.Kish, d))
				}
				narrow := "no"
				for _, fl := range r.Set.Diag.Flags {
					if fl.Code == "narrow" {
						narrow = "yes"
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.4g\t%s\t%s\t%s\t%.3g\t%s\t\n", name, k.Name, seed, r.Set.Len(), r.Kish, sm, b, narrow,
					r.Set.Diag.Values["ksd_ratio"], r.Verdict)
			}
		}
	}
	tw.Flush()
}
