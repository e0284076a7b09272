package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// otherExperiments returns the ids of the experiments of res that no
// plug-in of plugins presents, sorted; tuning experiments and the
// posteriordb benchmark have their own sections (writeTuning,
// writePosteriorDB).
func otherExperiments(res *Results, plugins []Plugin) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range res.Cells {
		id := c.Prov.Experiment
		if !seen[id] && !presented(res, plugins, id) && id != PDBExperiment && !res.Tuning(id) {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// recordedMetrics returns the scheduled metrics the cells record, in the
// order of their first appearance; method-reported statistics are left
// out.
func recordedMetrics(cells []*Cell) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cells {
		for _, r := range c.Rows {
			if !seen[r.Metric] && !strings.HasPrefix(r.Metric, "method:") {
				seen[r.Metric] = true
				out = append(out, r.Metric)
			}
		}
	}
	return out
}

// writeOther writes a section per experiment that no plug-in presents:
// for each dataset, method and particle count, the final value of every
// recorded metric (mean ± sample sd over the finished splits), then the
// experiment's figures. h.Others opens the section, which is "Other
// experiments" where plugins present some and "Experiments" where none
// but an Annotator takes part.
func writeOther(b *strings.Builder, res *Results, opts Options, plugins []Plugin, h Head) {
	ids := otherExperiments(res, plugins)
	if len(ids) == 0 {
		return
	}
	if slices.ContainsFunc(plugins, func(p Plugin) bool { return !annotates(p) }) {
		b.WriteString("## Other experiments\n\n")
	} else {
		b.WriteString("## Experiments\n\n")
	}
	b.WriteString(h.Others + "Each value is the metric at the method's last evaluated snapshot, mean ± sample sd over the finished splits.\n\n")
	for _, id := range ids {
		cells := Done(res.Experiment(id))
		fmt.Fprintf(b, "### %s\n\n", id)
		if len(cells) == 0 {
			b.WriteString("No finished cell.\n\n")
			continue
		}
		metrics := recordedMetrics(cells)
		b.WriteString("| dataset | method | N | splits |")
		for _, m := range metrics {
			fmt.Fprintf(b, " %s |", m)
		}
		b.WriteString("\n|---|---|---|---|" + strings.Repeat("---|", len(metrics)) + "\n")
		names, _ := MethodOrder(cells)
		for _, ds := range Datasets(cells) {
			groups := ByMethod(cells, ds)
			for _, name := range names {
				ns, atN := byN(groups[name])
				for _, n := range ns {
					group := atN[n]
					fmt.Fprintf(b, "| %s | %s | %d | %d |", DatasetLabel(cells, ds), name, n, len(group))
					for _, m := range metrics {
						var v []float64
						for _, c := range group {
							if r, ok := c.Final(m); ok {
								v = append(v, r.Value)
							}
						}
						mean, sd := meanAndSD(v)
						fmt.Fprintf(b, " %s |", FormatPM(mean, sd))
					}
					b.WriteString("\n")
				}
			}
		}
		b.WriteString("\n")
		for _, l := range experimentLinks(res, id, nil, opts) {
			b.WriteString(l + "\n")
		}
		b.WriteString("\n")
	}
}

// meanAndSD returns the mean and sample sd of v (sd 0 for one value, NaN
// mean for none).
func meanAndSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) == 1 {
		return mean, 0
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}
