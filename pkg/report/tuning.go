package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// A tuning experiment (role = "tuning") chooses settings on validation
// rows. Its cells enter no claim; the report's Tuning section gives, per
// dataset and method kind, its grid, the validation metrics of each
// configuration and the configuration the rule chooses: the generic
// rule (the best mean of the first metric) or the file's declared ones
// (harness.Choose).

// TuningConfig is one configuration of a tuning grid: a method at one
// particle count.
type TuningConfig struct {
	// Method is the method's name in the experiment file; N its particle
	// count (0 for the kind's default).
	Method string
	N      int
	// Differs are the settings (dotted keys, sorted) in which the
	// configuration differs from another of its kind, as key=value.
	Differs []string
	// Stats[metric] is the metric at the end of each split's run (the last
	// evaluated snapshot: the end of the budget), over the finished splits.
	// Under a declared rule it is the metric at the snapshot the rule
	// reads, over the grid's splits (absent unless every split has it), and
	// Stats[harness.ChooseGradEvals] the gradient evaluations there.
	Stats map[string]Stat
	// Split[key][split] are the values of each split under a declared
	// rule (nil under the generic rule).
	Split map[string]map[int]float64
}

// Name is the configuration's name in the grid's table: the method's,
// with its particle count when the grid's configurations differ in it.
func (c TuningConfig) Name() string {
	if slices.Contains(c.Differs, fmt.Sprintf("N=%d", c.N)) {
		return c.Method + fmt.Sprintf(" (N=%d)", c.N)
	}
	return c.Method
}

// TuningGrid is the grid of one method kind on one dataset of a tuning
// experiment.
type TuningGrid struct {
	Dataset, Label, Kind string
	// Configs are in legend order (method name, then N).
	Configs []TuningConfig
	// Chosen indexes Configs: the configuration with the best mean of
	// Metric in the direction its registered meaning gives (larger,
	// smaller, or nearer its ideal value; the first in legend order of
	// equals), or the one Rule chooses, -1 when none has it or when Metric
	// has no registered Meaning (Unranked).
	Chosen int
	// Metric is the metric the rule reads: the experiment's first, or a
	// declared rule's.
	Metric string
	// Unranked says why no configuration is chosen although Metric may be
	// recorded: it has no registered meaning, so no direction ranks it.
	Unranked string
	// Rule is the declared rule the grid is chosen by (nil for the generic
	// rule above); Splits are then the splits its values are read on, and
	// Reason says how a tie was broken ("" when Metric alone decided).
	Rule   *harness.Choose
	Splits []int
	Reason string
	// Across is the choice of a rule with across = "datasets" (Dataset
	// and Label empty; nil otherwise): the datasets, the configurations'
	// ranks and the per-start choices.
	Across *AcrossChoice
	// settings are the configurations' recorded settings, flattened;
	// fileOrder the experiment's methods in file order.
	settings  []map[string]string
	fileOrder []string
}

// TuningGrids returns the grids of tuning experiment id of res: per
// dataset and method kind, the configurations with their final metrics
// (the experiment's metrics in file order) and the chosen one. An
// experiment that declares choice rules ([[choose]], harness.Choose) has
// instead, per rule in file order, the grids that rule reads and chooses.
func TuningGrids(res *Results, id string) []TuningGrid {
	if rules := res.Declared[id].Choose; len(rules) > 0 {
		return ruleGrids(res, id, rules)
	}
	cells := Done(res.Experiment(id))
	metrics := res.Declared[id].Metrics
	if len(metrics) == 0 {
		metrics = recordedMetrics(cells)
	}
	if len(metrics) == 0 {
		return nil
	}
	names, kinds := MethodOrder(cells)
	var kindOrder []string
	for _, m := range names {
		if !slices.Contains(kindOrder, kinds[m]) {
			kindOrder = append(kindOrder, kinds[m])
		}
	}
	var out []TuningGrid
	for _, ds := range Datasets(cells) {
		groups := ByMethod(cells, ds)
		for _, k := range kindOrder {
			g := TuningGrid{Dataset: ds, Label: DatasetLabel(cells, ds), Kind: k, Chosen: -1, Metric: metrics[0]}
			var settings []map[string]string
			for _, m := range names {
				if kinds[m] != k || len(groups[m]) == 0 {
					continue
				}
				ns, atN := byN(groups[m])
				for _, n := range ns {
					tc := TuningConfig{Method: m, N: n, Stats: map[string]Stat{}}
					for _, metric := range metrics {
						if s, ok := FinalStat(atN[n], metric); ok {
							tc.Stats[metric] = s
						}
					}
					g.Configs = append(g.Configs, tc)
					settings = append(settings, flatSettings(atN[n][0].Prov.Settings))
				}
			}
			if len(g.Configs) == 0 {
				continue
			}
			differing(g.Configs, settings)
			mm, err := res.Meaning(g.Metric)
			if err != nil {
				g.Unranked = err.Error()
				out = append(out, g)
				continue
			}
			for i, tc := range g.Configs {
				s, ok := tc.Stats[g.Metric]
				if !ok || !Finite(s.Mean) {
					continue
				}
				if best := g.Chosen; best < 0 || mm.Beats(s.Mean, g.Configs[best].Stats[g.Metric].Mean) {
					g.Chosen = i
				}
			}
			out = append(out, g)
		}
	}
	return out
}

// flatSettings flattens recorded settings (a JSON object) to dotted keys
// and their JSON values.
func flatSettings(v any) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				key := k
				if prefix != "" {
					key = prefix + "." + k
				}
				walk(key, x)
			}
			return
		}
		if prefix == "" {
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		out[prefix] = string(b)
	}
	walk("", v)
	return out
}

// differing sets each configuration's Differs: the keys whose value is not
// the same in every configuration of the grid (a key a configuration does
// not record is its kind's default), and the particle count when it
// varies.
func differing(cfgs []TuningConfig, settings []map[string]string) {
	keys := map[string]bool{}
	for _, s := range settings {
		for k := range s {
			keys[k] = true
		}
	}
	var diff []string
	for k := range keys {
		first, same := "", true
		for i, s := range settings {
			v, ok := s[k]
			if !ok {
				v = "default"
			}
			if i == 0 {
				first = v
			} else if v != first {
				same = false
			}
		}
		if !same {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	nVaries := false
	for _, c := range cfgs {
		nVaries = nVaries || c.N != cfgs[0].N
	}
	for i := range cfgs {
		var d []string
		if nVaries {
			d = append(d, fmt.Sprintf("N=%d", cfgs[i].N))
		}
		for _, k := range diff {
			v, ok := settings[i][k]
			if !ok {
				v = "default"
			}
			d = append(d, k+"="+strings.Trim(v, `"`))
		}
		cfgs[i].Differs = d
	}
}

// TuningExperiments returns the ids of the tuning experiments of res with
// cells, sorted.
func TuningExperiments(res *Results) []string {
	var out []string
	for _, id := range ExperimentIDs(res) {
		if res.Tuning(id) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// writeTuning writes the Tuning section: for every tuning experiment, per
// dataset and method kind, its grid, the validation metrics of each
// configuration and the chosen one. h says what the settings are left
// open by (h.Against) and whether claims are made (h.Claims).
func writeTuning(b *strings.Builder, res *Results, opts Options, h Head) {
	ids := TuningExperiments(res)
	if len(ids) == 0 {
		return
	}
	open, claims := "", ""
	if h.Against != "" {
		open = " " + h.Against + " leaves open"
	}
	if h.Claims {
		claims = " Their cells enter no claim."
	}
	b.WriteString("## Tuning\n\n")
	b.WriteString(DecisionLink(opts, "Tuning the BNN arms (experiments/tune-bnn.toml)"))
	b.WriteString("Experiments with `role = \"tuning\"` choose settings" + open + " on validation rows carved from the training rows " +
		"(`eval.rows`; the harness refuses a tuning file whose metrics would read test rows)." + claims + " " +
		"Each value is the metric on the held-out rows (validation or development, as `eval.rows` says) at the end of the run's budget (its last evaluated snapshot), mean ± sample sd over the finished splits. " +
		"Rule: per dataset and method kind, the chosen configuration is the one with the best mean of the experiment's first metric " +
		"(lowest for an RMSE, MMD² or KSD²; highest for an accuracy or log-likelihood), the first by name of equals; " +
		"an experiment that declares its own rules (`[[choose]]` tables) is chosen by each of them instead, as stated with its tables.\n\n")
	for _, id := range ids {
		fmt.Fprintf(b, "### %s\n\n", id)
		if d := res.Declared[id].Description; d != "" {
			b.WriteString(d + ".\n\n")
		}
		grids := TuningGrids(res, id)
		if len(grids) == 0 {
			b.WriteString("No finished cell.\n\n")
			continue
		}
		metrics := res.Declared[id].Metrics
		if len(metrics) == 0 {
			metrics = recordedMetrics(Done(res.Experiment(id)))
		}
		for _, g := range grids {
			if g.Across != nil {
				writeAcrossGrid(b, g)
				continue
			}
			if g.Rule != nil {
				writeRuleGrid(b, g)
				continue
			}
			fmt.Fprintf(b, "**%s, kind %s** (%d configurations; chosen by %s):\n\n", g.Label, g.Kind, len(g.Configs), g.Metric)
			b.WriteString("| configuration | settings that differ | splits |")
			for _, m := range metrics {
				fmt.Fprintf(b, " %s |", m)
			}
			b.WriteString(" chosen |\n|---|---|---|" + strings.Repeat("---|", len(metrics)) + "---|\n")
			for i, c := range g.Configs {
				name := c.Method
				if slices.Contains(c.Differs, fmt.Sprintf("N=%d", c.N)) {
					name += fmt.Sprintf(" (N=%d)", c.N)
				}
				d := strings.Join(c.Differs, ", ")
				if d == "" {
					d = "–"
				}
				splits := 0
				var vals []string
				for _, m := range metrics {
					s, ok := c.Stats[m]
					if !ok {
						vals = append(vals, "–")
						continue
					}
					splits = max(splits, len(s.Values))
					vals = append(vals, FormatPM(s.Mean, s.SD))
				}
				chosen := ""
				if i == g.Chosen {
					chosen = "**yes**"
				}
				fmt.Fprintf(b, "| %s | %s | %d | %s | %s |\n", name, d, splits, strings.Join(vals, " | "), chosen)
			}
			if g.Chosen >= 0 {
				c := g.Configs[g.Chosen]
				s := c.Stats[g.Metric]
				fmt.Fprintf(b, "\nChosen: `%s` (%s), validation %s %s.\n\n", c.Method, strings.Join(c.Differs, ", "), g.Metric, FormatPM(s.Mean, s.SD))
			} else if g.Unranked != "" {
				fmt.Fprintf(b, "\nNone chosen: %s.\n\n", g.Unranked)
			} else {
				fmt.Fprintf(b, "\nNo configuration records %s: none chosen.\n\n", g.Metric)
			}
		}
		for _, l := range experimentLinks(res, id, nil, opts) {
			b.WriteString(l + "\n")
		}
		b.WriteString("\n")
	}
}

// writeRuleGrid writes the table of a grid chosen by a declared rule: per
// configuration its value on each split, their mean, the means of the
// rule's tie-breaks, and the chosen one with how a tie was broken.
func writeRuleGrid(b *strings.Builder, g TuningGrid) {
	r := g.Rule
	fmt.Fprintf(b, "**%s, kind %s, rule %s** (%d configurations): %s.\n\n", g.Label, g.Kind, r.Name, len(g.Configs), ruleText(r, g.Metric, g.Splits))
	var extra []string
	for _, k := range append([]string{harness.ChooseGradEvals}, r.Then...) {
		if k != g.Metric && !slices.Contains(extra, k) {
			extra = append(extra, k)
		}
	}
	b.WriteString("| configuration | settings that differ |")
	for _, sp := range g.Splits {
		fmt.Fprintf(b, " %s, split %d |", g.Metric, sp)
	}
	fmt.Fprintf(b, " mean %s |", g.Metric)
	for _, k := range extra {
		fmt.Fprintf(b, " mean %s |", k)
	}
	b.WriteString(" chosen |\n|---|---|" + strings.Repeat("---|", len(g.Splits)+1+len(extra)) + "---|\n")
	for i, c := range g.Configs {
		d := strings.Join(c.Differs, ", ")
		if d == "" {
			d = "–"
		}
		var vals []string
		for _, sp := range g.Splits {
			if v, ok := c.Split[g.Metric][sp]; ok {
				vals = append(vals, fmt.Sprintf("%.6g", v))
			} else {
				vals = append(vals, "–")
			}
		}
		for _, k := range append([]string{g.Metric}, extra...) {
			if s, ok := c.Stats[k]; ok {
				vals = append(vals, fmt.Sprintf("%.6g", s.Mean))
			} else {
				vals = append(vals, "–")
			}
		}
		chosen := ""
		if i == g.Chosen {
			chosen = "**yes**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", c.Name(), d, strings.Join(vals, " | "), chosen)
	}
	switch {
	case g.Chosen >= 0:
		c := g.Configs[g.Chosen]
		reason := ""
		if g.Reason != "" {
			reason = " Decided by the tie-breaks: " + g.Reason + "."
		}
		fmt.Fprintf(b, "\nChosen by rule %s: `%s` (%s), mean validation %s %.6g.%s\n\n", r.Name, c.Name(), strings.Join(c.Differs, ", "), g.Metric, c.Stats[g.Metric].Mean, reason)
	case g.Unranked != "":
		fmt.Fprintf(b, "\nNone chosen: %s.\n\n", g.Unranked)
	default:
		fmt.Fprintf(b, "\nNo configuration has %s on every split: none chosen.\n\n", g.Metric)
	}
}
