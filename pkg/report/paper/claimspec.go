package paper

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// Claims declared as data: a TOML file whose [claim.ID] tables each state
// one claim (its statement, the arms by role, the statistic, the cost
// axis, the direction, the test with its margin, the experiments pooled)
// and the protocols it is read under. Evaluate computes any declared
// claim; the paper's claims are claims.toml, embedded in the package.

//go:embed claims.toml
var paperClaimsTOML []byte

// PaperClaimsFile is the name the embedded file of the paper's claims is
// reported under.
const PaperClaimsFile = "pkg/report/paper/claims.toml"

// Statistics a claim may declare: the measure compared per split.
const (
	// StatCostToLevel is the cost of each arm to reach the comparator's
	// value at its chosen snapshot (relaxed by Level).
	StatCostToLevel = "cost to level"
	// StatAtBudget is the metric of each arm's chosen snapshot within the
	// same budget.
	StatAtBudget = "metric at budget"
	// StatMMDAtN is the MMD² of the under-test arm's run with N particles
	// against the comparator's greedy set at its step N.
	StatMMDAtN = "MMD² at equal N"
	// StatAtEqualN is the metric of two greedy arms at the largest N both
	// reach.
	StatAtEqualN = "metric at equal N"
	// StatAtEqualCost is the metric of two greedy arms at the least
	// gradient budget at which both have a snapshot.
	StatAtEqualCost = "metric at equal cost"
	// StatRate is the rate in N of the under-test arm's MMD² (claim 2).
	StatRate = "rate in N"
)

// Tests a claim may declare.
const (
	TestSuperiority    = "superiority"
	TestNonInferiority = "non-inferiority"
	TestEquivalence    = "equivalence"
	// TestEvery needs every counted series to pass (claim 2's rate).
	TestEvery = "every"
)

// Scales of a claim's contrasts.
const (
	ScaleRatio      = "ratio"
	ScaleDifference = "difference"
	// ScaleShare is the share of counted series that pass (claim 2).
	ScaleShare = "share"
)

// MaxStatementWords is the longest statement a claim may have.
const MaxStatementWords = 12

// PoolEntry is one experiment and metric a claim pools.
type PoolEntry struct {
	Experiment string `toml:"experiment"`
	Metric     string `toml:"metric"`
}

// ArmRoles are the arms of a claim by role, as method kinds ("mmdfw",
// "svgd", "sp"; "start" for start-only baselines).
type ArmRoles struct {
	UnderTest  string   `toml:"under_test"`
	Comparator string   `toml:"comparator"`
	Baselines  []string `toml:"baselines"`
}

// ProtocolSpec is how a claim is read under one protocol.
type ProtocolSpec struct {
	// Name is "paper" or "fair".
	Name string `toml:"-"`
	// Cost is the cost axis: "seconds", "gradient evaluations" or
	// "particles".
	Cost string `toml:"cost"`
	// Snapshot is "final" or "development" ("" where the statistic reads
	// none: final).
	Snapshot string `toml:"snapshot"`
	// Arms is "paper" (the paper's arm of each role) or "fair" (the fair
	// arm under test against every comparator arm).
	Arms string `toml:"arms"`
}

// ClaimSpec is one declared claim.
type ClaimSpec struct {
	// ID names the claim ("1", "4a"); Section is the report section (the
	// paper's claim number) it is shown under, 1 when the file gives none.
	ID      string
	Section int
	// Statement is the claim in at most MaxStatementWords words.
	Statement string
	// Statistics are the measures compared per split (Stat*); several
	// are pooled as strata of one estimate.
	Statistics []string
	// Scale is ScaleRatio, ScaleDifference or ScaleShare; Direction
	// "lower" or "higher" (which way the under-test arm's measure should
	// lie from the comparator's).
	Scale, Direction string
	// Test is Test*; Margin the margin, a ratio ≥ 1 on the ratio scale, a
	// difference ≥ 0 otherwise.
	Test   string
	Margin float64
	// Pool are the experiments and metrics pooled.
	Pool []PoolEntry
	// Arms are the arms by role.
	Arms ArmRoles
	// Protocols are the protocols the claim is read under, paper first.
	Protocols []ProtocolSpec
}

// LogMargin is the margin on the scale of the contrasts: ln Margin for a
// ratio, Margin otherwise.
func (s *ClaimSpec) LogMargin() float64 {
	if s.Scale == ScaleRatio {
		return math.Log(s.Margin)
	}
	return s.Margin
}

// Band is the tolerance band of the claim's per-data-set contrasts: the
// margin on the contrasts' scale, read as non-inferiority for a
// non-inferiority or equivalence test.
func (s *ClaimSpec) Band() Band {
	return Band{Tau: s.LogMargin(), Ratio: s.Scale == ScaleRatio, NonInferiority: s.Test == TestNonInferiority || s.Test == TestEquivalence}
}

// Protocol returns the claim's protocol of that name.
func (s *ClaimSpec) Protocol(name string) (ProtocolSpec, bool) {
	for _, p := range s.Protocols {
		if p.Name == name {
			return p, true
		}
	}
	return ProtocolSpec{}, false
}

// config is the protocolConfig of a protocol spec.
func (p ProtocolSpec) config() protocolConfig {
	c := protocolConfig{Axis: axisGrads, Snap: snapFinal, Budget: BudgetLevels[1], FW: p.Arms, SVGD: p.Arms}
	if p.Cost == axisSeconds {
		c.Axis = axisSeconds
	}
	if p.Snapshot == "development" {
		c.Snap = snapDev
	}
	return c
}

// claimDoc is a claim table as the file spells it.
type claimDoc struct {
	Section   *int                    `toml:"section"`
	Statement string                  `toml:"statement"`
	Statistic any                     `toml:"statistic"`
	Scale     string                  `toml:"scale"`
	Direction string                  `toml:"direction"`
	Test      string                  `toml:"test"`
	Margin    *float64                `toml:"margin"`
	Pool      []PoolEntry             `toml:"pool"`
	Arms      ArmRoles                `toml:"arms"`
	Protocols map[string]ProtocolSpec `toml:"protocols"`
}

// PaperClaims returns the paper's declared claims (claims.toml). A broken
// embedded file is a programmer error: it panics.
func PaperClaims() []ClaimSpec {
	s, err := ParseClaims(PaperClaimsFile, paperClaimsTOML)
	if err != nil {
		panic("paper: " + err.Error())
	}
	return s
}

// LoadClaims reads and parses the claims file at path.
func LoadClaims(path string) ([]ClaimSpec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseClaims(path, b)
}

// ParseClaims parses a claims file; name is the file's name in errors,
// which are *harness.ConfigError naming the file, line and key at fault.
// Claims come in order of section, then ID.
func ParseClaims(name string, src []byte) ([]ClaimSpec, error) {
	var doc struct {
		Claim map[string]claimDoc `toml:"claim"`
	}
	md, err := toml.Decode(string(src), &doc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &harness.ConfigError{File: name, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		return nil, &harness.ConfigError{File: name, Msg: err.Error()}
	}
	fail := func(key []string, format string, a ...any) error {
		return &harness.ConfigError{File: name, Line: keyLineOf(src, key), Key: strings.Join(key, "."), Msg: fmt.Sprintf(format, a...)}
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fail(u[0], "unknown key")
	}
	if len(doc.Claim) == 0 {
		return nil, fail([]string{"claim"}, "no [claim.ID] table")
	}
	var out []ClaimSpec
	for id, d := range doc.Claim {
		k := func(s ...string) []string { return append([]string{"claim", id}, s...) }
		s := ClaimSpec{ID: id, Section: 1, Statement: d.Statement, Scale: d.Scale, Direction: d.Direction, Test: d.Test, Pool: d.Pool, Arms: d.Arms}
		if d.Section != nil {
			if *d.Section <= 0 {
				return nil, fail(k("section"), "section must be a positive claim number")
			}
			s.Section = *d.Section
		}
		if w := len(strings.Fields(d.Statement)); w == 0 || w > MaxStatementWords {
			return nil, fail(k("statement"), "a statement has 1 to %d words, this one %d", MaxStatementWords, w)
		}
		switch v := d.Statistic.(type) {
		case string:
			s.Statistics = []string{v}
		case []any:
			for _, x := range v {
				str, ok := x.(string)
				if !ok {
					return nil, fail(k("statistic"), "a statistic is a string, not %T", x)
				}
				s.Statistics = append(s.Statistics, str)
			}
		default:
			return nil, fail(k("statistic"), "statistic is a string or a list of strings")
		}
		stats := []string{StatCostToLevel, StatAtBudget, StatMMDAtN, StatAtEqualN, StatAtEqualCost, StatRate}
		for _, st := range s.Statistics {
			if !slices.Contains(stats, st) {
				return nil, fail(k("statistic"), "unknown statistic %q (statistics: %s)", st, strings.Join(stats, ", "))
			}
		}
		if len(s.Statistics) == 0 {
			return nil, fail(k("statistic"), "no statistic")
		}
		if !slices.Contains([]string{ScaleRatio, ScaleDifference, ScaleShare}, d.Scale) {
			return nil, fail(k("scale"), "unknown scale %q (ratio, difference, share)", d.Scale)
		}
		if d.Direction != "lower" && d.Direction != "higher" {
			return nil, fail(k("direction"), "unknown direction %q (lower, higher)", d.Direction)
		}
		if !slices.Contains([]string{TestSuperiority, TestNonInferiority, TestEquivalence, TestEvery}, d.Test) {
			return nil, fail(k("test"), "unknown test %q (superiority, non-inferiority, equivalence, every)", d.Test)
		}
		if d.Margin == nil {
			return nil, fail(k("margin"), "no margin: declare it, with its reason in a comment")
		}
		s.Margin = *d.Margin
		switch {
		case d.Scale == ScaleRatio && !(s.Margin >= 1):
			return nil, fail(k("margin"), "a ratio margin is at least 1, not %g", s.Margin)
		case !(s.Margin >= 0) || math.IsInf(s.Margin, 0):
			return nil, fail(k("margin"), "a margin is finite and at least 0, not %g", s.Margin)
		}
		if len(d.Pool) == 0 {
			return nil, fail(k("pool"), "no experiment pooled")
		}
		for _, p := range d.Pool {
			if p.Experiment == "" || p.Metric == "" {
				return nil, fail(k("pool"), "each pooled entry names an experiment and a metric")
			}
		}
		kinds := []string{"mmdfw", "svgd", "sp"}
		if !slices.Contains(kinds, d.Arms.UnderTest) {
			return nil, fail(k("arms", "under_test"), "unknown kind %q (%s)", d.Arms.UnderTest, strings.Join(kinds, ", "))
		}
		if d.Arms.Comparator != "" && !slices.Contains(kinds, d.Arms.Comparator) || d.Arms.Comparator == "" && d.Test != TestEvery {
			return nil, fail(k("arms", "comparator"), "unknown kind %q (%s)", d.Arms.Comparator, strings.Join(kinds, ", "))
		}
		for _, b := range d.Arms.Baselines {
			if b != "start" {
				return nil, fail(k("arms", "baselines"), "unknown baseline kind %q (start)", b)
			}
		}
		if len(d.Protocols) == 0 {
			return nil, fail(k("protocols"), "no protocol")
		}
		for _, pn := range []string{paper, fair} {
			p, ok := d.Protocols[pn]
			if !ok {
				continue
			}
			p.Name = pn
			if !slices.Contains([]string{axisSeconds, axisGrads, "particles"}, p.Cost) {
				return nil, fail(k("protocols", pn, "cost"), "unknown cost axis %q (seconds, gradient evaluations, particles)", p.Cost)
			}
			if p.Snapshot != "" && p.Snapshot != "final" && p.Snapshot != "development" {
				return nil, fail(k("protocols", pn, "snapshot"), "unknown snapshot rule %q (final, development)", p.Snapshot)
			}
			if p.Arms != paper && p.Arms != fair {
				return nil, fail(k("protocols", pn, "arms"), "unknown arms %q (paper, fair)", p.Arms)
			}
			s.Protocols = append(s.Protocols, p)
		}
		for pn := range d.Protocols {
			if pn != paper && pn != fair {
				return nil, fail(k("protocols", pn), "unknown protocol %q (paper, fair)", pn)
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b ClaimSpec) int {
		if a.Section != b.Section {
			return a.Section - b.Section
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// keyLineOf returns the line of src at which the dotted key path is
// defined: the line of "name =" under the table header of its parent, or
// of the table header itself; the nearest defined ancestor when the key is
// not found; 0 when none is.
func keyLineOf(src []byte, key []string) int {
	lines := strings.Split(string(src), "\n")
	for n := len(key); n > 0; n-- {
		parent, last := key[:n-1], key[n-1]
		var table []string
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "[") {
				h := strings.Trim(strings.SplitN(t, "#", 2)[0], "[] \t")
				table = nil
				for _, p := range strings.Split(h, ".") {
					table = append(table, strings.Trim(strings.TrimSpace(p), `"'`))
				}
				if slices.Equal(table, key[:n]) {
					return i + 1
				}
				continue
			}
			if !slices.Equal(table, parent) {
				continue
			}
			name, _, ok := strings.Cut(t, "=")
			if ok && strings.Trim(strings.TrimSpace(name), `"'`) == last {
				return i + 1
			}
		}
	}
	return 0
}
