package paper

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
)

// ClaimsPlugin is a report plug-in (report.Plugin) for a claims file of
// one's own: it adds to the report a section "Claims (File)" with the
// pooled verdict of each of its claims under each protocol it declares
// (WritePooledFrom) and each claim's pooled estimate, per-data-set table
// and exclusions (WriteClaimPooled), computed by Evaluate like the
// paper's. It takes part where res holds a result of an experiment its
// claims pool, gives the report no title, and presents no experiment
// (report.Annotator): the pooled experiments keep their tables and
// figures. Build it with NewClaimsPlugin or LoadClaimsPlugin.
type ClaimsPlugin struct {
	// File is the name the claims file is reported under.
	File string
	// Specs are its claims.
	Specs []ClaimSpec
	// src is the file's text (nil when not read by LoadClaimsPlugin), for
	// the lines of Check's errors.
	src []byte
}

var _ report.Annotator = ClaimsPlugin{}

// NewClaimsPlugin returns the plug-in of the claims specs, declared in the
// file named file.
func NewClaimsPlugin(file string, specs []ClaimSpec) ClaimsPlugin {
	return ClaimsPlugin{File: file, Specs: specs}
}

// LoadClaimsPlugin reads the claims file at path (LoadClaims: its errors
// name the file, line and key) and returns its plug-in.
func LoadClaimsPlugin(path string) (ClaimsPlugin, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return ClaimsPlugin{}, err
	}
	s, err := ParseClaims(path, b)
	if err != nil {
		return ClaimsPlugin{}, err
	}
	return ClaimsPlugin{File: path, Specs: s, src: b}, nil
}

// Check returns an error when res holds no result of an experiment a
// claim pools (a misspelt id, or one not run yet), so that the claim is
// never left out of the report unsaid: a *harness.ConfigError naming the
// file, the line (when the plug-in was read by LoadClaimsPlugin) and the
// key claim.ID.pool.
func (p ClaimsPlugin) Check(res *report.Results) error {
	for _, s := range p.Specs {
		for _, e := range s.Pool {
			if len(res.Experiment(e.Experiment)) > 0 {
				continue
			}
			key := []string{"claim", s.ID, "pool"}
			line := 0
			if p.src != nil {
				line = keyLineOf(p.src, key)
			}
			have := report.ExperimentIDs(res)
			return &harness.ConfigError{File: p.File, Line: line, Key: strings.Join(key, "."),
				Msg: fmt.Sprintf("experiment %q has no current result (experiments with results: %s)", e.Experiment, orNone(strings.Join(have, ", ")))}
		}
	}
	return nil
}

// orNone is s, or "none" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Name returns "claims FILE".
func (p ClaimsPlugin) Name() string { return "claims " + p.File }

// Experiments returns the experiments the claims pool that res holds
// results of, sorted.
func (p ClaimsPlugin) Experiments(res *report.Results) []string {
	var out []string
	for _, s := range p.Specs {
		for _, e := range s.Pool {
			if !slices.Contains(out, e.Experiment) && len(res.Experiment(e.Experiment)) > 0 {
				out = append(out, e.Experiment)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Head gives nothing: the report keeps its own title.
func (ClaimsPlugin) Head(*report.Results) report.Head { return report.Head{} }

// Annotates marks the plug-in as a report.Annotator.
func (ClaimsPlugin) Annotates() {}

// Sections writes the section "Claims (File)": the table of pooled
// verdicts, then each claim's pooled estimate under each protocol with
// its per-data-set table and exclusions, in the order of the claims'
// sections.
func (p ClaimsPlugin) Sections(b *strings.Builder, res *report.Results, _ report.Options) {
	rs := Evaluate(res, p.Specs)
	fmt.Fprintf(b, "## Claims (%s)\n\n", p.File)
	WritePooledFrom(b, rs, p.File)
	var sections []int
	for _, r := range rs {
		if !slices.Contains(sections, r.Section) {
			sections = append(sections, r.Section)
		}
	}
	for _, s := range sections {
		WriteClaimPooled(b, rs, s)
	}
}

// Plot writes nothing.
func (ClaimsPlugin) Plot(*report.Results, string) ([]string, error) { return nil, nil }
