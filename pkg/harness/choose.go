package harness

import (
	"math"
	"slices"
	"strconv"
)

// ChooseGradEvals names, in a Choose rule's Then, the gradient evaluations
// a configuration spent up to the snapshot the rule reads (fewer win).
const ChooseGradEvals = "grad_evals"

// Choose is a named rule by which a tuning experiment chooses one
// configuration per dataset and method kind, declared in the base of the
// file as a [[choose]] table; it enters no cache key. The report applies
// each rule (see Tuning experiments in the package documentation):
//
//   - it reads the methods of the kinds Kinds, or the methods Methods
//     (all of the file's when both are empty);
//   - a configuration's value on a split is Metric read at the snapshot
//     the rule names: the final one of each cell (N = 0), or, with N > 0,
//     the final one of the cell with N particles, else the snapshot at
//     step N of a greedy method's larger cell (it holds N particles there);
//   - Cells = "geomean" makes a method with several particle counts one
//     configuration whose value on a split is the geometric mean of its
//     cells' values (their gradient evaluations summed, any other metric
//     their arithmetic mean); without it each particle count is a
//     configuration of its own;
//   - the values are averaged (arithmetic mean) over the splits, and the
//     best mean in the direction of the metric's registered meaning wins;
//   - a mean within TieRelative·|best| (or TieAbsolute) of the best is a
//     tie; ties go, in the order of Then, to fewer gradient evaluations
//     (ChooseGradEvals) or the better mean of a metric, each compared
//     exactly; what remains goes to the first in legend order (Ties =
//     "file-order": the first listed in the file);
//   - Across = "datasets" (with Combine = "mean-rank") makes the choice
//     one configuration per kind that serves every dataset: each dataset
//     ranks the configurations by their mean (1 the best, equal means the
//     average of their places), and the smallest mean rank over the
//     datasets wins, ties going to the first in legend or file order;
//   - Per = "start" (with Across) first chooses so among the
//     configurations of each start (the recorded setting start, else
//     init), then between those per-start choices by the same rule.
type Choose struct {
	// Name names the rule in the report (e.g. the figure it serves).
	Name string `toml:"name"`
	// Kinds and Methods (at most one set) restrict the rule to the
	// methods of these kinds, or to these methods, of the file.
	Kinds   []string `toml:"kinds"`
	Methods []string `toml:"methods"`
	// Metric is the metric the rule reads: one of the base file's
	// eval.metrics.
	Metric string `toml:"metric"`
	// N is the particle count whose snapshot the rule reads; 0 reads the
	// final snapshot of every cell.
	N int `toml:"n"`
	// Cells is how one method's cells at several particle counts make one
	// value on a split: "geomean", or "" for one configuration per count.
	Cells string `toml:"cells"`
	// TieRelative and TieAbsolute (at most one set) are the tie tolerance:
	// a fraction of the best mean's magnitude, or an absolute difference.
	TieRelative float64 `toml:"tie_relative"`
	TieAbsolute float64 `toml:"tie_absolute"`
	// Then are the tie-breaks in order: ChooseGradEvals or metrics of the
	// base file's eval.metrics.
	Then []string `toml:"then"`
	// Across is "datasets" for one choice per kind that serves every
	// dataset, or "" for one choice per dataset and kind.
	Across string `toml:"across"`
	// Combine is how Across combines the datasets: "mean-rank" (the only
	// one, and required with Across).
	Combine string `toml:"combine"`
	// Per is "start" to choose, under Across, per start setting first and
	// then between the per-start choices; "" chooses among all at once.
	Per string `toml:"per"`
	// Ties is "file-order" for ties to go to the configuration listed
	// first in the file; "" leaves them to legend order.
	Ties string `toml:"ties"`
}

// Choose's values of Across, Combine, Per and Ties.
const (
	ChooseAcrossDatasets = "datasets"
	ChooseMeanRank       = "mean-rank"
	ChoosePerStart       = "start"
	ChooseFileOrder      = "file-order"
)

// checkChoose checks the file's [[choose]] rules: in a tuning experiment
// (role, as resolved), each rule named once, its metric and tie-breaks
// among metrics (the base file's eval.metrics: a profile that measures
// fewer leaves a rule nothing to read, which the report says), its
// tolerances finite and non-negative, its kinds and methods the file's.
func (d *decoder) checkChoose(rules []Choose, role string, metrics []string, methods map[string]methodDoc) ([]Choose, error) {
	if len(rules) > 0 && role != RoleTuning {
		return nil, d.errAt([]string{"choose"}, "a choice rule needs role = %q", RoleTuning)
	}
	seen := map[string]bool{}
	for i, r := range rules {
		at := func(k string) []string { return []string{"choose", strconv.Itoa(i), k} }
		ok := r.Name != ""
		for _, c := range r.Name {
			ok = ok && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')
		}
		switch {
		case !ok:
			return nil, d.errAt(at("name"), "%q is not a rule name (lower-case letters, digits and hyphens)", r.Name)
		case seen[r.Name]:
			return nil, d.errAt(at("name"), "rule %q is declared twice", r.Name)
		case !slices.Contains(metrics, r.Metric):
			return nil, d.errAt(at("metric"), "rule %q: metric %q is not one of eval.metrics %q", r.Name, r.Metric, metrics)
		case r.N < 0:
			return nil, d.errAt(at("n"), "rule %q: n = %d is negative (0 reads the final snapshot)", r.Name, r.N)
		case r.Cells != "" && r.Cells != "geomean":
			return nil, d.errAt(at("cells"), "rule %q: cells = %q is not \"geomean\"", r.Name, r.Cells)
		case r.TieRelative != 0 && r.TieAbsolute != 0:
			return nil, d.errAt(at("tie_absolute"), "rule %q: set tie_relative or tie_absolute, not both", r.Name)
		case r.Across != "" && r.Across != ChooseAcrossDatasets:
			return nil, d.errAt(at("across"), "rule %q: across = %q is not %q", r.Name, r.Across, ChooseAcrossDatasets)
		case r.Combine != "" && r.Combine != ChooseMeanRank:
			return nil, d.errAt(at("combine"), "rule %q: combine = %q is not %q", r.Name, r.Combine, ChooseMeanRank)
		case r.Across != "" && r.Combine == "":
			return nil, d.errAt(at("across"), "rule %q: across = %q needs combine = %q", r.Name, r.Across, ChooseMeanRank)
		case r.Combine != "" && r.Across == "":
			return nil, d.errAt(at("combine"), "rule %q: combine = %q needs across = %q", r.Name, r.Combine, ChooseAcrossDatasets)
		case r.Per != "" && r.Per != ChoosePerStart:
			return nil, d.errAt(at("per"), "rule %q: per = %q is not %q", r.Name, r.Per, ChoosePerStart)
		case r.Per != "" && r.Across == "":
			return nil, d.errAt(at("per"), "rule %q: per = %q needs across = %q", r.Name, r.Per, ChooseAcrossDatasets)
		case r.Ties != "" && r.Ties != ChooseFileOrder:
			return nil, d.errAt(at("ties"), "rule %q: ties = %q is not %q", r.Name, r.Ties, ChooseFileOrder)
		case r.Across != "" && (r.TieRelative != 0 || r.TieAbsolute != 0):
			return nil, d.errAt(at("across"), "rule %q: a mean rank ties only exactly: drop tie_relative and tie_absolute", r.Name)
		case r.Across != "" && len(r.Then) > 0:
			return nil, d.errAt(at("then"), "rule %q: across = %q breaks ties of mean rank by order only (ties), not by then", r.Name, r.Across)
		}
		if len(r.Kinds) > 0 && len(r.Methods) > 0 {
			return nil, d.errAt(at("methods"), "rule %q: set kinds or methods, not both", r.Name)
		}
		for _, k := range r.Kinds {
			found := false
			for _, m := range methods {
				found = found || m.Kind == k
			}
			if !found {
				return nil, d.errAt(at("kinds"), "rule %q: no method of the file has kind %q", r.Name, k)
			}
		}
		for _, m := range r.Methods {
			if _, ok := methods[m]; !ok {
				return nil, d.errAt(at("methods"), "rule %q: the file defines no method %q", r.Name, m)
			}
		}
		for k, v := range map[string]float64{"tie_relative": r.TieRelative, "tie_absolute": r.TieAbsolute} {
			if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, d.errAt(at(k), "rule %q: %s = %g is not a finite non-negative number", r.Name, k, v)
			}
		}
		for j, t := range r.Then {
			if t != ChooseGradEvals && !slices.Contains(metrics, t) {
				return nil, d.errAt(at("then"), "rule %q: tie-break %q is neither %q nor one of eval.metrics %q", r.Name, t, ChooseGradEvals, metrics)
			}
			if slices.Contains(r.Then[:j], t) {
				return nil, d.errAt(at("then"), "rule %q: tie-break %q is named twice", r.Name, t)
			}
		}
		seen[r.Name] = true
	}
	return rules, nil
}
