package paper

import (
	"fmt"
	"math"
	"slices"

	"github.com/mmdfw/mmdfw/pkg/report"
)

// The evaluator: one loop over a claim's pooled experiments, data sets and
// arms by role computes the paired contrasts of any declared claim; each
// statistic is a function of one data set and one pair of arms.

// Reasons of exclusion from a pooled estimate (the start of the reason;
// the rest says which arm and why).
const (
	// ExclStart: the contrast is decided by where the arms start, not by
	// the method (both reach the level at their first snapshot, or an arm
	// is read at its start).
	ExclStart = "decided by the start"
	// ExclBound: an arm never reaches the level, but its whole run cost
	// less than the other's cost to it: inconclusive, not worse.
	ExclBound = "bound"
	// ExclFlagged: a run flagged by a run-time check.
	ExclFlagged = "flagged run"
	// ExclShort: an arm's run stopped short of the budget it is read at
	// (BudgetTolerance), so the two arms were not given the same budget.
	ExclShort = "costs differ"
	// ExclOneSplit: a data set keeps one split while others keep
	// several; one value has no spread for the bootstrap to resample.
	ExclOneSplit = "one split left: no spread to resample beside data sets with several"
	// ExclConfounded: the arms differ in more than the method.
	ExclConfounded = "arms differ in more than the method"
	// ExclNotComputable: the contrast could not be computed.
	ExclNotComputable = "not computable"
)

// ExcludedFlags are the run-time flags that exclude a run from a pooled
// estimate: a run whose particles collapsed (Kish ESS or Stein spread
// far below the target's) or that diverged measures its failure, not the
// method's accuracy or cost.
var ExcludedFlags = []string{"collapse", "diverged"}

// runFlagged returns why one of cells is excluded by its run-time flags
// ("" when none is).
func runFlagged(cells ...*report.Cell) string {
	for _, c := range cells {
		if c == nil || c.Prov.Diagnostics == nil {
			continue
		}
		for _, f := range c.Prov.Diagnostics.Flags {
			if slices.Contains(ExcludedFlags, f.Code) {
				return fmt.Sprintf("%s: %s flagged %q", ExclFlagged, c.Prov.Method, f.Code)
			}
		}
	}
	return ""
}

// BudgetTolerance is the share of a budget by which an arm read at it may
// stop short: a run whose last snapshot within the budget lies below
// (1 − BudgetTolerance) of it, and that records nothing beyond it, was
// given less than the other arm and is excluded (ExclShort).
const BudgetTolerance = 0.1

// ranShort returns why the runs of cells, read at the budget of level lv
// in gradient evaluations, were not given that budget ("" when each ran to
// within BudgetTolerance of it or beyond).
func ranShort(lv BudgetLevel, cells ...*report.Cell) string {
	for _, c := range cells {
		b := budgetOf(c, lv)
		if math.IsInf(b, 1) || b <= 0 {
			continue
		}
		var last float64
		beyond := false
		for _, r := range c.Rows {
			g := float64(r.GradEvals)
			if g > b {
				beyond = true
				break
			}
			last = max(last, g)
		}
		if !beyond && last < (1-BudgetTolerance)*b {
			return fmt.Sprintf("%s: %s stopped at %.3g gradient evaluations, %.0f %% of the budget %.3g", ExclShort, c.Prov.Method, last, 100*last/b, b)
		}
	}
	return ""
}

// refCapped returns why a measure of cell c against its HMC reference is
// excluded by the reference's run-time checks ("" when it is not): a
// chain at the leapfrog cap (RefCapped, hmc.Settings.PathCapped
// applied to every reference).
func refCapped(c *report.Cell) string {
	if c == nil {
		return ""
	}
	if k, n := RefCapped(c); k > 0 {
		return fmt.Sprintf("reference capped: %d of %d chains at the leapfrog cap", k, n)
	}
	return ""
}

// atStart reports whether a snapshot at step of a method of kind is its
// start: a greedy method (MMD-FW, Stein Points) at N ≤ 1, its first
// particle; any other method before its first step.
func atStart(kind string, step int) bool {
	if IsMMDFW(kind) || IsSP(kind) {
		return step <= 1
	}
	return step <= 0
}

// statistic computes the contrasts of under-test arm ut against
// comparator cp on dataset ds of experiment id in metric under cfg.
type statistic func(res *report.Results, id, ds, metric, ut, cp string, cfg protocolConfig) []Contrast

// statistics are the registered statistics by name. StatRate is claim 2's
// own code (claim2) and computes no contrast.
var statistics = map[string]statistic{
	StatCostToLevel: func(res *report.Results, id, ds, metric, ut, cp string, cfg protocolConfig) []Contrast {
		if c, ok := costContrast(res, id, ds, metric, ut, cp, cfg); ok {
			return []Contrast{c}
		}
		return nil
	},
	StatMMDAtN: func(res *report.Results, id, ds, metric, ut, cp string, _ protocolConfig) []Contrast {
		return claim3Pairs(res, id, ds, metric, cp, []string{ut})
	},
	StatAtEqualN: func(res *report.Results, id, ds, metric, ut, cp string, _ protocolConfig) []Contrast {
		if c, ok := spContrast(res, id, ds, metric, ut, cp, false); ok {
			return []Contrast{c}
		}
		return nil
	},
	StatAtEqualCost: func(res *report.Results, id, ds, metric, ut, cp string, _ protocolConfig) []Contrast {
		if c, ok := spContrast(res, id, ds, metric, ut, cp, true); ok {
			return []Contrast{c}
		}
		return nil
	},
	StatAtBudget: func(res *report.Results, id, ds, metric, ut, cp string, cfg protocolConfig) []Contrast {
		for _, c := range accuracyContrasts(res, id, ds, ut, cp, cfg, metric) {
			if c.metric == metric {
				return []Contrast{c}
			}
		}
		return nil
	},
}

// roleArms returns the methods of experiment id that stand for kind
// ("mmdfw", "svgd", "sp") under cfg on dataset ds: MMD-FW's arms of the
// protocol, SVGD's (every SVGD arm under the fair protocol), the one SP
// arm; with cfg.Start, the MMD-FW and SVGD arms of that start class.
func roleArms(r *report.Results, id, ds string, cells []*report.Cell, kind string, cfg protocolConfig) []string {
	switch kind {
	case "mmdfw":
		a := protocolFWArms(r, id, cfg.FW, cells)
		if cfg.Start != "" {
			a = ofStart(r, id, ds, cfg.Start, a, allArms(r, id, cells, IsMMDFW))
		}
		return a
	case "svgd":
		a := svgdArmNames(r, id, cfg.SVGD, cells)
		if cfg.Start != "" {
			a = ofStart(r, id, ds, cfg.Start, a, allArms(r, id, cells, IsSVGD))
		}
		return a
	case "sp":
		if a := arm(r, id, cfg.FW, cells, IsSP); a != "" {
			return []string{a}
		}
	}
	return nil
}

// noPartnerWhat is the measure a not-computable contrast names.
func noPartnerWhat(stat, metric string) string {
	switch stat {
	case StatCostToLevel:
		return "cost to the " + metricWord(metric) + " level"
	case StatMMDAtN:
		return "MMD² at equal N"
	}
	return metricWord(metric)
}

// sectionContrasts computes the contrasts of every claim of specs shown
// in section under cfg, in one pass: per pooled experiment (in the order
// the claims first pool them), data set, under-test arm and comparator
// arm, each pooled metric and statistic of each claim in turn. Each
// contrast records its claim (Contrast.Claim) and is read against that
// claim's band. Under a start filter (cfg.Start), an MMD-FW arm of the
// start that no arm of the other role starts beside gives a contrast
// that is not computable.
func sectionContrasts(res *report.Results, specs []ClaimSpec, section int, cfg protocolConfig) []Contrast {
	var mine []*ClaimSpec
	for i := range specs {
		if s := &specs[i]; s.Section == section && !slices.Contains(s.Statistics, StatRate) {
			mine = append(mine, s)
		}
	}
	return groupContrasts(res, mine, cfg)
}

// groupContrasts computes the contrasts of the claims mine, which share
// their arms by role, under cfg, as sectionContrasts does.
func groupContrasts(res *report.Results, mine []*ClaimSpec, cfg protocolConfig) []Contrast {
	var ids []string
	for _, s := range mine {
		for _, p := range s.Pool {
			if !slices.Contains(ids, p.Experiment) {
				ids = append(ids, p.Experiment)
			}
		}
	}
	if len(mine) == 0 {
		return nil
	}
	roles := mine[0].Arms
	var out []Contrast
	for _, id := range ids {
		cells := res.Reported(id)
		for _, ds := range report.Datasets(report.Done(cells)) {
			uts := roleArms(res, id, ds, cells, roles.UnderTest, cfg)
			cps := roleArms(res, id, ds, cells, roles.Comparator, cfg)
			each := func(f func(s *ClaimSpec, metric, stat string)) {
				for _, s := range mine {
					for _, p := range s.Pool {
						if p.Experiment != id {
							continue
						}
						for _, st := range s.Statistics {
							f(s, p.Metric, st)
						}
					}
				}
			}
			if cfg.Start != "" {
				var alone []string
				switch {
				case roles.UnderTest == "mmdfw" && len(cps) == 0:
					alone = uts
				case roles.Comparator == "mmdfw" && len(uts) == 0:
					alone = cps
				}
				for _, fw := range alone {
					if !hasCells(cells, ds, fw) {
						continue
					}
					seen := map[string]bool{}
					each(func(s *ClaimSpec, metric, stat string) {
						w := noPartnerWhat(stat, metric)
						if seen[w] {
							return
						}
						seen[w] = true
						k := noPartner(res, id, ds, fw, w, cfg.Axis, cfg)
						if roles.Comparator == "mmdfw" {
							k.A, k.B = k.B, k.A
						}
						k.Claim = s.ID
						out = append(out, k)
					})
				}
			}
			for _, ut := range uts {
				for _, cp := range cps {
					each(func(s *ClaimSpec, metric, stat string) {
						for _, k := range statistics[stat](res, id, ds, metric, ut, cp, cfg) {
							k.Claim = s.ID
							k.reband(s.Band())
							out = append(out, k)
						}
					})
				}
			}
		}
	}
	return out
}

// paperSpecs are the paper's declared claims, parsed once.
var paperSpecs = PaperClaims()

// paperSection returns the contrasts of the paper's claims shown in
// section under cfg.
func paperSection(res *report.Results, section int, cfg protocolConfig) []Contrast {
	return sectionContrasts(res, paperSpecs, section, cfg)
}
