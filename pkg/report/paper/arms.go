package paper

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/report"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
)

// What the report states about each arm of a contrast, and how it matches
// two arms: the start each runs from (resolved from the recorded settings
// by the kind's own default), the run setting of its timed cells, its
// compute seconds per thousand gradient evaluations.

// Start classes: two arms start alike when their classes agree.
const (
	startMAP     = "MAP"
	startModel   = "model init"
	startTrained = "trained network"
	startPrior   = "prior"
	startSearch  = "SP search"
	startSVGD    = "SVGD particles"
	startRef     = "reference starts"
)

// startOnly are the start-only baselines (kind start) by their setting
// start: the words and the start class.
var startOnly = map[string][2]string{
	"trained":  {"trained network alone", startTrained},
	"ensemble": {"deep ensemble of trained networks", startTrained},
	"map":      {"MAP alone", startMAP},
	"laplace":  {"Laplace draws at the MAP", startMAP},
	"prior":    {"prior draws", startPrior},
}

// IsStartKind reports whether a method kind is a start-only baseline
// (kind "start": the start a particle method would run from, alone).
func IsStartKind(kind string) bool { return report.NormKind(kind) == "start" }

// startAlone reports whether a start-only baseline is its start alone
// (the trained network alone, the MAP alone) rather than several draws of
// it (a deep ensemble, Laplace draws): the baseline a method's gain over
// its start is measured against.
func startAlone(c *report.Cell) bool {
	s := settingString(c, "start")
	return s == "trained" || s == "map"
}

// isBNN reports whether the cells of a dataset are a regression network's:
// they record an RMSE. The kinds' defaults depend on it (the network's
// own initialisation is the start of MMD-FW and SVGD there).
func isBNN(cells []*report.Cell) bool { return report.HasMetric(cells, "rmse") }

// settingString returns a recorded setting as a string ("" when absent).
func settingString(c *report.Cell, key string) string {
	m, _ := c.Prov.Settings.(map[string]any)
	if v, ok := m[key]; ok {
		switch x := v.(type) {
		case string:
			return x
		case bool:
			return fmt.Sprint(x)
		}
	}
	return ""
}

// methodSummary returns the "method" object of a cell's summary.
func methodSummary(c *report.Cell) map[string]any {
	m, _ := c.Summary["method"].(map[string]any)
	return m
}

// StartOf returns the start of a method's cell as it ran, in words, and
// its class, from the recorded settings resolved by the kind's defaults:
// MMD-FW's start (as its summary records it, else its setting, else the
// network's initialisation on a BNN and the MAP otherwise); SVGD's init
// (Laplace draws at the MAP, the network's initialisation, prior draws;
// unset: the network's initialisation on a BNN, the prior otherwise); SP
// at the MAP (map = true) or from its own candidate search; SGLD at the
// MAP, from Laplace draws at it (init "laplace") or from the prior; SVGD's
// init "trained" (particles drawn around a trained network) and MMD-FW's
// start "trained" are the class "trained network". A start-only baseline (kind start) is the start it is: the
// trained network alone or a deep ensemble of trained networks (class
// trained network), the MAP alone or Laplace draws at the MAP (class MAP),
// prior draws (class prior: the start of SVGD's and SGLD's prior arms and
// of MMD-FW's start "prior").
// bnn says whether the dataset is a regression network's.
func StartOf(c *report.Cell, bnn bool) (label, class string) {
	k := c.Prov.Kind
	switch {
	case IsMMDFW(k):
		s, _ := methodSummary(c)["start"].(string)
		if s == "" {
			s = settingString(c, "start")
		}
		if s == "" {
			s = "map"
			if bnn {
				s = "model"
			}
		}
		switch s {
		case "map":
			return "MAP", startMAP
		case "model":
			return "model init draw", startModel
		case "trained":
			return "trained network", startTrained
		case "prior":
			return "prior draw", startPrior
		case "svgd":
			return "SVGD particles", startSVGD
		}
		return s, s
	case IsSVGD(k):
		s := settingString(c, "init")
		if s == "" {
			s = "prior"
			if bnn {
				s = "model"
			}
		}
		switch s {
		case "laplace":
			return "Laplace draws at the MAP", startMAP
		case "trained":
			return "draws around a trained network", startTrained
		case "model":
			return "model init draws", startModel
		case "prior":
			return "prior draws", startPrior
		case "reference":
			return "reference starts", startRef
		}
		return s, s
	case IsSP(k):
		if settingString(c, "map") == "true" {
			return "MAP", startMAP
		}
		return "own candidate search", startSearch
	case IsStartKind(k):
		s := settingString(c, "start")
		if w, ok := startOnly[s]; ok {
			return w[0], w[1]
		}
		return s, s
	case report.NormKind(k) == "sgld":
		switch settingString(c, "init") {
		case "map":
			return "MAP", startMAP
		case "laplace":
			return "Laplace draws at the MAP", startMAP
		}
		return "prior draws", startPrior
	}
	return "", ""
}

// armInfo describes method m of experiment id on dataset ds from its
// finished cells.
func armInfo(res *report.Results, id, ds, m string) ArmInfo {
	cells := report.CellsOf(report.Done(res.Experiment(id)), ds)
	a := ArmInfo{Method: m, SecPerKGrad: math.NaN()}
	bnn := isBNN(cells)
	var per []float64
	timing := map[string]bool{}
	for _, c := range cells {
		if c.Prov.Method != m {
			continue
		}
		if a.Kind == "" {
			a.Kind = c.Prov.Kind
			a.Start, a.StartClass = StartOf(c, bnn)
			b := c.Prov.KeyDoc.Budget
			a.Budget = fmt.Sprintf("steps %d, seconds %g, gradient evaluations %d", b.Steps, b.Seconds, b.GradEvals)
			a.Rows = c.Prov.KeyDoc.Eval.Rows
		}
		if c.Prov.GradEvals > 0 && c.Prov.Seconds > 0 {
			per = append(per, 1000*c.Prov.Seconds/float64(c.Prov.GradEvals))
		}
		if c.Prov.KeyDoc.Timed {
			timing[timingText(c)] = true
		}
	}
	if len(per) > 0 {
		a.SecPerKGrad, _ = report.MeanSD(per)
	}
	a.Timing = strings.Join(report.SortedKeys(timing), "; ")
	return a
}

// timingText is the run setting of a timed cell.
func timingText(c *report.Cell) string {
	return fmt.Sprintf("-j %d × %d threads on %s (%s)", c.Prov.Jobs, c.Prov.Threads, c.Prov.Host.Hostname, c.Prov.Host.CPUModel)
}

// confounds returns the factors besides the method in which arms a and b
// differ: the start class, the budget, the evaluation rows and, on the
// seconds axis, the run setting of the timed cells.
func confounds(a, b ArmInfo, seconds bool) []string {
	var out []string
	if a.StartClass != b.StartClass {
		out = append(out, fmt.Sprintf("start: %s vs %s", a.Start, b.Start))
	}
	if a.Budget != b.Budget {
		out = append(out, fmt.Sprintf("budget: %s vs %s", a.Budget, b.Budget))
	}
	if a.Rows != b.Rows {
		out = append(out, fmt.Sprintf("rows: %q vs %q", a.Rows, b.Rows))
	}
	if seconds && a.Timing != b.Timing {
		out = append(out, fmt.Sprintf("timing: %s vs %s", a.Timing, b.Timing))
	}
	return out
}

// constantFloor returns, per split, the value of metric of the constant
// predictor (the kind constant: the training mean) on dataset ds: from
// experiment id when it has one, else from another experiment of res on
// the same dataset and split (its test rows are the same shipped split;
// its training mean differs by at most the development rows held out).
// src names the experiment it came from ("" when none).
func constantFloor(res *report.Results, id, ds, metric string) (vals map[int]float64, src string) {
	ids := []string{id}
	for _, e := range report.ExperimentIDs(res) {
		if e != id && !res.Tuning(e) {
			ids = append(ids, e)
		}
	}
	for _, e := range ids {
		vals = map[int]float64{}
		for _, c := range report.CellsOf(report.Done(res.Experiment(e)), ds) {
			if report.NormKind(c.Prov.Kind) != "constant" {
				continue
			}
			if r, ok := c.Final(metric); ok && report.Finite(r.Value) {
				vals[c.Prov.Split] = r.Value
			}
		}
		if len(vals) > 0 {
			return vals, e
		}
	}
	return nil, ""
}

// worseThan reports whether v is worse than the floor f of a metric.
func worseThan(v, f float64, higherBetter bool) bool {
	if higherBetter {
		return v < f
	}
	return v > f
}

// costTable is the cost of each arm of the contrasts cs: per figure,
// dataset and arm its start, the gradient evaluations and compute seconds
// of its whole run (mean over splits) and its seconds per thousand
// gradient evaluations.
func costTable(res *report.Results, cs []Contrast) ClaimTable {
	t := ClaimTable{Title: "Cost of each arm (whole runs, mean over splits)",
		Header: []string{"figure", "dataset", "arm", "start", "splits", "gradient evaluations", "compute seconds", "seconds per 1000 gradient evaluations", "timing"}}
	type key struct{ fig, ds, label, m string }
	seen := map[key]bool{}
	var keys []key
	for _, c := range cs {
		for _, a := range []ArmInfo{c.A, c.B} {
			k := key{c.Figure, c.DS, c.Dataset, a.Method}
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if keys[i].fig != keys[j].fig {
			return keys[i].fig < keys[j].fig
		}
		return keys[i].ds < keys[j].ds
	})
	for _, k := range keys {
		a := armInfo(res, k.fig, k.ds, k.m)
		var g, s []float64
		for _, c := range report.CellsOf(report.Done(res.Experiment(k.fig)), k.ds) {
			if c.Prov.Method == k.m {
				g = append(g, float64(c.Prov.GradEvals))
				s = append(s, c.Prov.Seconds)
			}
		}
		mg, _ := report.MeanSD(g)
		ms, _ := report.MeanSD(s)
		timing := a.Timing
		if timing == "" {
			timing = "untimed"
		}
		t.Rows = append(t.Rows, []string{k.fig, k.label, k.m, a.Start, fmt.Sprint(len(g)), report.FormatG(mg), report.FormatG(ms), report.FormatG(a.SecPerKGrad), timing})
	}
	return t
}

// MMDFWRun is an MMD-FW cell's settings as the run resolved them: the
// recorded settings are as the experiment file gave them, so an unset
// setting is resolved here by the kind's own defaults for the cell's
// target (pkg/mmdfw's Settings defaults and the wiring's choice of z).
type MMDFWRun struct {
	// Weights is the weight rule: bq, line-search, schedule, equal or
	// stein. Unset, it is BQ when z resolves to a source, Stein otherwise.
	Weights string
	// Z is the estimate of z = μ_p(x) the weights use: "exact" (the
	// closed-form embedding: unset z on a Gaussian target), "SGLD pool"
	// or "HMC pool" (a pilot's draws; unset z with BQ or line-search
	// weights elsewhere), "" (none).
	Z string
	// Kernel is "RBF" or "RFF, D = …" (default D 200).
	Kernel string
	// Direction is the LMO direction: self (the default), frozen or exact.
	Direction string
	// Score is how a candidate's score ∇log p is computed in the LMO:
	// "full-data" (batch unset) or "minibatch of B rows".
	Score string
}

// WeightsText is the weight rule with its z source: "bq (z exact)".
func (r MMDFWRun) WeightsText() string {
	if r.Z == "" || (r.Weights != "bq" && r.Weights != "line-search") {
		return r.Weights
	}
	if r.Z == "exact" {
		return r.Weights + " (z exact)"
	}
	return fmt.Sprintf("%s (z from an %s)", r.Weights, r.Z)
}

// ResolveMMDFW returns the settings an MMD-FW cell ran with; ok is false
// for a cell of another kind. The target is Gaussian when the cell's
// reference is the closed form (its summary's reference kind "exact").
func ResolveMMDFW(c *report.Cell) (r MMDFWRun, ok bool) {
	s, _, ok := MMDFWSettings(c)
	if !ok {
		return r, false
	}
	r.Weights, r.Z, r.Direction = string(s.Weights), string(s.Z), string(s.Direction)
	gaussian := false
	if m, ok := report.RefObject(c); ok {
		k, _ := m["kind"].(string)
		gaussian = k == "exact"
	}
	if r.Z == "" {
		switch {
		case gaussian:
			r.Z = "exact"
		case r.Weights == "bq" || r.Weights == "line-search":
			r.Z = "pool"
		}
	}
	if r.Z == "pool" {
		r.Z = "SGLD pool"
		if settingString(c, "pool_sampler") == "hmc" {
			r.Z = "HMC pool"
		}
	}
	if r.Weights == "" {
		r.Weights = "stein"
		if r.Z != "" {
			r.Weights = "bq"
		}
	}
	if r.Direction == "" {
		r.Direction = "self"
	}
	r.Kernel = "RBF"
	if s.Kernel == mmdfw.RFFKernel {
		r.Kernel = fmt.Sprintf("RFF, D = %d", cmp.Or(s.Features, mmdfw.DefaultFeatures))
	}
	r.Score = "full-data"
	if s.Batch > 0 {
		r.Score = fmt.Sprintf("minibatch of %d rows", s.Batch)
	}
	return r, true
}
