package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// RefDiag is the diagnostics of the HMC reference of one dataset split, as
// the wiring writes them into the cells' summaries.
type RefDiag struct {
	// Experiments are the experiments whose cells report this reference.
	Experiments     []string
	Dataset         string
	Split           int
	MaxRhat, MinESS float64
	Flagged         bool
	Reasons         []string
	// Pred is the reference's convergence on the BNN's predictions at the
	// fmmd2 inputs (summary.reference.predictions), nil where no cell
	// evaluates fmmd2.
	Pred *PredDiag
}

// PredDiag is a reference's split-R̂ and bulk ESS on the network's outputs,
// per test input, summarised as max R̂ and min ESS.
type PredDiag struct {
	Inputs          int
	MaxRhat, MinESS float64
	Flagged         bool
	Reasons         []string
}

// CellPredDiag returns the prediction diagnostics one cell records.
func CellPredDiag(c *Cell) (*PredDiag, bool) {
	ref, ok := RefObject(c)
	if !ok {
		return nil, false
	}
	m, ok := ref["predictions"].(map[string]any)
	if !ok {
		return nil, false
	}
	d := &PredDiag{MaxRhat: SummaryNumber(m["max_rhat"]), MinESS: SummaryNumber(m["min_ess"])}
	d.Inputs = int(SummaryNumber(m["inputs"]))
	d.Flagged, _ = m["flagged"].(bool)
	if l, ok := m["reasons"].([]any); ok {
		for _, r := range l {
			d.Reasons = append(d.Reasons, fmt.Sprint(r))
		}
	}
	return d, true
}

// PredFlaggedSplits counts the splits of ds whose reference the done cells
// record as flagged on predictions, and the splits with prediction
// diagnostics.
func PredFlaggedSplits(cells []*Cell, ds string) (flagged, total int) {
	seen := map[int]bool{}
	for _, c := range Done(cells) {
		if c.Prov.Dataset != ds {
			continue
		}
		d, ok := CellPredDiag(c)
		if !ok {
			continue
		}
		seen[c.Prov.Split] = seen[c.Prov.Split] || d.Flagged
	}
	for _, f := range seen {
		total++
		if f {
			flagged++
		}
	}
	return flagged, total
}

// NormKey lowercases a JSON key and drops everything but letters and
// digits, so that "max_rhat", "MaxRhat" and "max-R̂" compare equal.
func NormKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// RefSummary returns the reference diagnostics held in a cell's summary:
// the object under the first key that names a reference ("reference",
// "reference_summary", "hmc"), or its "diagnostics" object when it has one
// (the wiring's form: kind, draws, bandwidth, diagnostics). An exact
// reference (a Gaussian target's closed form) has no diagnostics.
func RefSummary(c *Cell) (map[string]any, bool) {
	m, ok := RefObject(c)
	if !ok {
		return nil, false
	}
	if d, ok := m["diagnostics"].(map[string]any); ok {
		return d, true
	}
	for k := range m {
		switch NormKey(k) {
		case "maxrhat", "rhatmax", "miness", "essmin", "flagged":
			return m, true
		}
	}
	return nil, false
}

// RefObject returns the object under the summary key naming the reference.
func RefObject(c *Cell) (map[string]any, bool) {
	keys := make([]string, 0, len(c.Summary))
	for k := range c.Summary {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n := NormKey(k)
		if strings.HasPrefix(n, "reference") || n == "hmc" || n == "ref" {
			if m, ok := c.Summary[k].(map[string]any); ok {
				return m, true
			}
		}
	}
	return nil, false
}

// RefDiags returns the distinct reference diagnostics of res by dataset
// and split: cells of several experiments that share a reference give one
// entry naming them all.
func RefDiags(res *Results) []RefDiag {
	seen := map[string]int{}
	var out []RefDiag
	for _, c := range res.Cells {
		m, ok := RefSummary(c)
		if !ok {
			continue
		}
		d := RefDiag{Experiments: []string{c.Prov.Experiment}, Dataset: c.Prov.Dataset, Split: c.Prov.Split, MaxRhat: math.NaN(), MinESS: math.NaN()}
		for k, v := range m {
			switch n := NormKey(k); {
			case n == "maxrhat" || n == "rhatmax":
				d.MaxRhat = SummaryNumber(v)
			case n == "miness" || n == "essmin" || n == "minbulkess":
				d.MinESS = SummaryNumber(v)
			case n == "flagged":
				d.Flagged, _ = v.(bool)
			case n == "reasons" || n == "flagreasons":
				if l, ok := v.([]any); ok {
					for _, r := range l {
						d.Reasons = append(d.Reasons, fmt.Sprint(r))
					}
				}
			}
		}
		d.Pred, _ = CellPredDiag(c)
		key := fmt.Sprintf("%s\x00%d\x00%v\x00%v\x00%v\x00%q", d.Dataset, d.Split, d.MaxRhat, d.MinESS, d.Flagged, d.Reasons)
		if i, ok := seen[key]; ok {
			if !slices.Contains(out[i].Experiments, c.Prov.Experiment) {
				out[i].Experiments = append(out[i].Experiments, c.Prov.Experiment)
			}
			if out[i].Pred == nil {
				out[i].Pred = d.Pred
			}
			continue
		}
		seen[key] = len(out)
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Dataset != b.Dataset {
			return a.Dataset < b.Dataset
		}
		return a.Split < b.Split
	})
	return out
}

// SummaryNumber returns v as a number of a decoded JSON summary, NaN when
// it is none.
func SummaryNumber(v any) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return math.NaN()
}

// Options configure the report.
type Options struct {
	// Figures is the figures directory as the report links to it
	// (relative to the report's own folder).
	Figures string
	// FigureDir is the figures directory on disk, used to link only the
	// figures that exist ("" links every figure).
	FigureDir string
	// Plugins are the section providers the report may call on; those
	// that present an experiment of the results take part (Plugin).
	Plugins []Plugin
	// Decisions is the file of the decisions behind the report
	// (docs/DECISIONS.md) as the report links to it, relative to the
	// report's own folder; "" links none (DecisionLink).
	Decisions string
	// Lists is the path of the report's list files as the report links
	// to them, relative to its own folder, without their suffixes:
	// Lists+CellsList holds every skipped, failed, ignored and not-run
	// cell, Lists+VersionsList every code revision with its cell count
	// (WriteLists writes them beside the report). The report lists the
	// first MaxIgnoredListed items of a long list and counts the rest,
	// which it sends to the file when Lists is set.
	Lists string
}

// The suffixes of the report's list files (Options.Lists).
const (
	CellsList    = "-cells.csv"
	VersionsList = "-versions.csv"
)

// DecisionLink is the line that sends a reader from a section to the
// decision behind it, the section of opts.Decisions headed heading:
// "Why: [DECISIONS.md, “heading”](path#anchor)", the anchor as GitHub
// makes it from the heading. It is "" when opts.Decisions is "".
func DecisionLink(opts Options, heading string) string {
	if opts.Decisions == "" {
		return ""
	}
	return fmt.Sprintf("Why: [%s, \u201c%s\u201d](%s#%s).\n\n", path.Base(opts.Decisions), heading, opts.Decisions, HeadingAnchor(heading))
}

// HeadingAnchor is the anchor GitHub gives a Markdown heading: lower case,
// letters, digits, spaces, hyphens and underscores kept, spaces as
// hyphens.
func HeadingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Write writes the report on res: its head (a plug-in's, else a generic
// one), the cells counted, the deviations, the sections of every plug-in of
// opts.Plugins that presents an experiment of res (the paper's claims with
// their verdicts, say), the Tuning section, the posteriordb benchmark, the
// other experiments with their figures, the HMC reference diagnostics and,
// when a cell recorded one, the flagged results.
func Write(w io.Writer, res *Results, opts Options) error {
	var b strings.Builder
	plugins := taking(res, opts.Plugins)
	h := head(res, plugins)
	fmt.Fprintf(&b, "# %s\n\n", h.Title)
	if h.Lead != "" {
		b.WriteString(h.Lead + ", checked against the cached results in `" + res.Dir + "`. Everything below is computed from those results; nothing is re-run.\n\n")
	} else {
		b.WriteString("Computed from the cached results in `" + res.Dir + "`; nothing is re-run.\n\n")
	}
	for _, p := range plugins {
		if s, ok := p.(Summarizer); ok {
			s.Summary(&b, res, opts)
		}
	}
	writeStatus(&b, res, opts)
	writeDeviations(&b, res, h.Against, opts)
	for _, p := range plugins {
		p.Sections(&b, res, opts)
	}
	writeTuning(&b, res, opts, h)
	writePosteriorDB(&b, res, opts)
	writeOther(&b, res, opts, plugins, h)
	writeRefDiags(&b, res, opts)
	writeFlagged(&b, res, h.Claims, opts)
	_, err := io.WriteString(w, Reflow(b.String()))
	return err
}

// writeFlagged lists the cells whose method flagged its result
// (harness.Provenance.Diagnostics), in cell order; nothing at all, not even
// the heading, when no cell recorded a flag and every run-time check was
// evaluated on every cell of its kinds. claims says
// whether verdicts above may include them. The count is followed by the
// cells counted by flag code in the words of the run's summary
// (harness.FlagCounts), and each row's reason is the cell's
// harness.Diagnostics.Reason, as its "cell finished" line gives it, so
// that a cell's flags read the same in the terminal and here. After the
// count, one line per
// run-time check (runChecks) says on how many cells of its kinds it was
// evaluated; the section is written, too, when no cell is flagged but a
// check was not evaluated on some cell.
func writeFlagged(b *strings.Builder, res *Results, claims bool, opts Options) {
	var rows []string
	codes := map[string]int{}
	for _, c := range res.Cells {
		if d := c.Prov.Diagnostics; d.Flagged() {
			d.CountFlags(codes)
			why := d.Reason()
			if su := pdbSetupFlags(c); len(su) > 0 {
				why += fmt.Sprintf(" (%s: raised by the set-up at this N, not counted in the posteriordb section)", strings.Join(su, ", "))
			}
			rows = append(rows, fmt.Sprintf("| `%s` | %s | %s |\n", c.Prov.Cell, CellText(c.Prov.Method), CellText(why)))
		}
	}
	checks := countChecks(res.Cells, res.Checks)
	if len(rows) == 0 && len(notEvaluated(checks)) == 0 {
		return
	}
	above := "the figures above include them"
	if claims {
		above = "the figures and verdicts above include them"
	}
	fmt.Fprintf(b, "\n## Flagged results\n\n%s%d cell(s) whose method flagged its result as not to be trusted (%s; "+
		"`repro run --strict` fails them)", DecisionLink(opts, "Flags that mean something"), len(rows), above)
	if len(rows) > 0 {
		// In the words of the run's summary, so that the counts read the
		// same in the terminal and here.
		fmt.Fprintf(b, ", by flag: %s", harness.FlagCounts(codes))
	}
	if len(checks) > 0 {
		b.WriteString(". The run-time checks that only raise a flag, and the cells of their methods they were evaluated on " +
			"(a cell computed before a check was not checked by it, which is not a pass):\n\n")
		writeChecks(b, checks)
		b.WriteString("\n")
	} else {
		b.WriteString(":\n\n")
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("| cell | method | reason |\n|---|---|---|\n")
	for _, r := range rows {
		b.WriteString(r)
	}
}

// CellText makes s safe in a Markdown table cell.
func CellText(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// FigureLinks returns Markdown image links to the PNGs of the given
// figure ids (the figures a claim rests on): a figure declared by any
// experiment of res, drawn for every dataset of its experiment.
func FigureLinks(res *Results, ids []string, opts Options) []string {
	var out []string
	for _, id := range ids {
		for _, exp := range ExperimentIDs(res) {
			out = append(out, experimentLinks(res, exp, []string{id}, opts)...)
		}
	}
	return out
}

// experimentLinks returns the Markdown image links to the figures of
// experiment exp (only those with the ids in only, when not nil) whose PNG
// exists in opts.FigureDir (every one when it is empty).
func experimentLinks(res *Results, exp string, only []string, opts Options) []string {
	var out []string
	cells := res.Experiment(exp)
	for _, f := range FiguresOf(res, exp) {
		if only != nil && !slices.Contains(only, f.ID) {
			continue
		}
		for _, ds := range Datasets(Done(cells)) {
			for _, n := range f.FileNames(cells, ds) {
				if opts.FigureDir != "" {
					if _, err := os.Stat(path.Join(opts.FigureDir, n+".png")); err != nil {
						continue
					}
				}
				out = append(out, fmt.Sprintf("![%s](%s)", n, path.Join(opts.Figures, n+".png")))
			}
		}
	}
	return out
}

// revisions returns the code revisions of the cells of res, sorted, each
// as the report names it (12 hex digits, "(uncommitted changes)" when the
// tree was modified), with their cell counts.
func revisions(res *Results) ([]string, map[string]int) {
	count := map[string]int{}
	for _, c := range res.Cells {
		r := c.Prov.Code.Revision
		if r == "" {
			r = "unknown revision"
		} else if len(r) > 12 {
			r = r[:12]
		}
		if c.Prov.Code.Modified {
			r += " (uncommitted changes)"
		}
		count[r]++
	}
	return SortedKeys(count), count
}

func writeStatus(b *strings.Builder, res *Results, opts Options) {
	counts := map[harness.Status]int{}
	for _, c := range res.Cells {
		counts[c.Prov.Status]++
	}
	rl, _ := revisions(res)
	if len(rl) == 0 {
		rl = []string{"none"}
	}
	code := strings.Join(rl, ", ")
	if len(rl) > codeListed {
		// A long list says little in the header: each cell's revision is
		// in its provenance, and every revision with its cell count in
		// the versions file.
		code = fmt.Sprintf("%d revisions, each cell's in its provenance", len(rl))
		if opts.Lists != "" {
			code += fmt.Sprintf(" (all with their cell counts in %s)", listLink(opts, VersionsList))
		}
	}
	fmt.Fprintf(b, "Cells: %d (%d done, %d failed, %d skipped). Code: %s.\n\n", len(res.Cells), counts[harness.Done], counts[harness.Failed], counts[harness.Skipped], code)
	if v, err := verifyText(res.Dir); err != nil {
		fmt.Fprintf(b, "The record of `repro verify` cannot be read: %v.\n\n", err)
	} else if v != "" {
		b.WriteString(v + "\n\n")
	}
}

// listLink is the Markdown link to the list file opts.Lists+suffix.
func listLink(opts Options, suffix string) string {
	f := opts.Lists + suffix
	return fmt.Sprintf("[%s](%s)", path.Base(f), f)
}

// codeListed is the most code revisions the report's header lists.
const codeListed = 3

// subsetWords mark a dataset label that names part of a dataset.
var subsetWords = []string{"prefix", "subset", "subsample", "first", "rows"}

// writeDeviations lists how the results depart from the experiment files'
// full protocol, or from against ("the paper") when a plug-in names it.
func writeDeviations(b *strings.Builder, res *Results, against string, opts Options) {
	dataset := "not the whole dataset"
	if against == "" {
		b.WriteString("## Deviations\n\n")
		against = "the full profile"
	} else {
		b.WriteString("## Deviations from " + against + "\n\n")
		dataset = "not the dataset of " + against
	}
	n := 0
	item := func(format string, a ...any) {
		n++
		fmt.Fprintf(b, "- "+format+"\n", a...)
	}
	writeIgnored(b, res, &n, opts)
	writeApart(b, res, &n)
	writeNotRun(b, res, &n, opts)
	// Profiles other than the full protocol.
	profiles := map[string]map[string]bool{}
	for _, c := range res.Cells {
		if profiles[c.Prov.Experiment] == nil {
			profiles[c.Prov.Experiment] = map[string]bool{}
		}
		profiles[c.Prov.Experiment][c.Prov.Profile] = true
	}
	for _, id := range SortedKeys(profiles) {
		for _, p := range SortedKeys(profiles[id]) {
			if p != "" && p != "full" {
				item("**%s** was run under the `%s` profile (a reduced protocol: fewer splits, particles or iterations than %s).", id, p, against)
			}
			if d := res.Deviations[id][p]; d != "" {
				item("**%s**: %s", id, strings.TrimSpace(d))
			}
		}
	}
	// Data subsets: the summary says so, or the label does.
	type dsLabel struct{ ds, label string }
	labels := map[dsLabel][]string{}
	subset := map[string]bool{}
	for _, c := range res.Cells {
		l := DatasetLabel(res.Cells, c.Prov.Dataset)
		k := dsLabel{c.Prov.Dataset, l}
		if !slices.Contains(labels[k], c.Prov.Experiment) {
			labels[k] = append(labels[k], c.Prov.Experiment)
		}
		if b, _ := c.Summary["dataset_subset"].(bool); b {
			subset[c.Prov.Dataset] = true
		}
	}
	var keys []dsLabel
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].ds < keys[j].ds })
	for _, k := range keys {
		low := strings.ToLower(k.label)
		for _, w := range subsetWords {
			if subset[k.ds] || strings.Contains(low, w) {
				item("Data subset: `%s` is used as **%s** (experiments %s), %s.", k.ds, k.label, strings.Join(labels[k], ", "), dataset)
				break
			}
		}
	}
	// Skipped cells, grouped by reason.
	writeCellGroups(b, res, harness.Skipped, "Skipped (data missing)", &n, opts)
	// Flagged references.
	for _, d := range RefDiags(res) {
		if d.Flagged {
			pred := ""
			if p := d.Pred; p != nil {
				pred = fmt.Sprintf(" On the network's predictions at %d test inputs (fmmd2) it is ", p.Inputs)
				if p.Flagged {
					pred += fmt.Sprintf("flagged too (max R̂ %s, min ESS %s).", FormatG(p.MaxRhat), FormatG(p.MinESS))
				} else {
					pred += fmt.Sprintf("not flagged (max R̂ %s, min ESS %s): the MMD² in function space can be trusted where the one in parameter space cannot.", FormatG(p.MaxRhat), FormatG(p.MinESS))
				}
			}
			item("HMC reference flagged: `%s` split %d (used by %s; max R̂ %s, min ESS %s): %s. MMD² against it is less trustworthy.%s",
				d.Dataset, d.Split, strings.Join(d.Experiments, ", "), FormatG(d.MaxRhat), FormatG(d.MinESS), strings.Join(d.Reasons, "; "), pred)
		}
	}
	writeCellGroups(b, res, harness.Failed, "Failed", &n, opts)
	// Timed experiments run under different -j or on different machines,
	// or beside other work.
	jobs := map[string]map[string]map[string]bool{} // experiment → setting → methods
	loaded := map[string]map[string]bool{}          // experiment → methods of loaded cells
	nLoaded, nTimed := map[string]int{}, map[string]int{}
	for _, c := range Done(res.Cells) {
		if !c.Prov.KeyDoc.Timed || c.Prov.Steps == 0 {
			continue // not timed, or no steps to time (a fitted floor such as ols)
		}
		id := c.Prov.Experiment
		if jobs[id] == nil {
			jobs[id], loaded[id] = map[string]map[string]bool{}, map[string]bool{}
		}
		set := fmt.Sprintf("-j %d on %s (%s)", c.Prov.Jobs, c.Prov.Host.Hostname, c.Prov.Host.CPUModel)
		if jobs[id][set] == nil {
			jobs[id][set] = map[string]bool{}
		}
		jobs[id][set][c.Prov.Method] = true
		nTimed[id]++
		if busy(c.Prov) {
			nLoaded[id]++
			loaded[id][c.Prov.Method] = true
		}
	}
	for _, id := range SortedKeys(jobs) {
		if len(jobs[id]) > 1 {
			var sets []string
			for _, set := range SortedKeys(jobs[id]) {
				sets = append(sets, fmt.Sprintf("%s (%s)", set, strings.Join(SortedKeys(jobs[id][set]), ", ")))
			}
			item("Timed experiment **%s** mixes run settings, so its times do not compare exactly: %s.", id, strings.Join(sets, "; "))
		}
		if nLoaded[id] > 0 {
			item("Timed experiment **%s**: %d of %d cells ran beside other work (a 1-minute load average above jobs × threads + 1 at their start or end; methods %s), so their seconds are slower than an idle machine's; their gradient evaluations are not affected.",
				id, nLoaded[id], nTimed[id], strings.Join(SortedKeys(loaded[id]), ", "))
		}
	}
	if n == 0 {
		b.WriteString("None found in the results.\n")
	}
	b.WriteString("\n")
}

// busy reports whether a cell ran beside other work: the machine's 1-minute
// load average at its start or end exceeded what the run itself puts on it
// (jobs × threads) by more than one.
func busy(p *harness.Provenance) bool {
	l := p.Load
	return l != nil && max(l.Start, l.End) > float64(p.Jobs*p.Threads)+1
}

// MaxIgnoredListed bounds the items of a long list of the deviations
// the report names (ignored result files, cells not run, skipped or
// failed cells of one group): a renamed method can orphan hundreds of
// cells, and the count says the rest, which the cells file
// (Options.Lists) holds.
const MaxIgnoredListed = 8

// writeIgnored lists the result files LoadCurrent left out.
func writeIgnored(b *strings.Builder, res *Results, n *int, opts Options) {
	if len(res.Ignored) == 0 {
		return
	}
	*n++
	count := map[string]int{}
	for _, ig := range res.Ignored {
		count[ig.Reason]++
	}
	fmt.Fprintf(b, "- %d stale or orphaned result files ignored (%d stale: made under settings, data, seed or code versions that are not the experiment files' now; "+
		"%d orphaned: no experiment file plans the cell any more); no figure or verdict uses them:", len(res.Ignored), count[Stale], count[Orphaned])
	items := make([]string, len(res.Ignored))
	for i, ig := range res.Ignored {
		items[i] = fmt.Sprintf("`%s` (%s)", ig.Cell, ig.Reason)
		if ig.Why != "" {
			items[i] = fmt.Sprintf("`%s` (%s: %s)", ig.Cell, ig.Reason, ig.Why)
		}
	}
	writeListed(b, items, opts)
}

// writeApart lists the folders of the results that overrides kept apart,
// with their cell counts.
func writeApart(b *strings.Builder, res *Results, n *int) {
	if len(res.Apart) == 0 {
		return
	}
	*n++
	per := map[string]int{}
	for _, a := range res.Apart {
		per[a.Reason]++
	}
	fmt.Fprintf(b, "- %d result files made with overrides (`--set`) are kept apart from the experiment files' own and not read here (give the same `--set` to report them):", len(res.Apart))
	var items []string
	for _, f := range SortedKeys(per) {
		items = append(items, fmt.Sprintf("`%s` (%d)", f, per[f]))
	}
	writeListed(b, items, Options{})
}

// writeNotRun lists the planned cells that have no result yet, counted per
// experiment, with the first MaxIgnoredListed ids.
func writeNotRun(b *strings.Builder, res *Results, n *int, opts Options) {
	if len(res.NotRun) == 0 {
		return
	}
	*n++
	per := map[string]int{}
	for _, id := range res.NotRun {
		per[strings.SplitN(id, "/", 2)[0]]++
	}
	var parts []string
	for _, e := range SortedKeys(per) {
		parts = append(parts, fmt.Sprintf("%s %d", e, per[e]))
	}
	fmt.Fprintf(b, "- %d planned cells have no result yet (not run: %s); the figures and verdicts lack them:", len(res.NotRun), strings.Join(parts, ", "))
	items := make([]string, len(res.NotRun))
	for i, id := range res.NotRun {
		items[i] = "`" + id + "`"
	}
	writeListed(b, items, opts)
}

// writeListed ends a deviation line with the first MaxIgnoredListed items,
// comma-separated, then "and K more" for the rest (all of them in the
// cells file when opts.Lists is set), and a full stop.
func writeListed(b *strings.Builder, items []string, opts Options) {
	for i, it := range items {
		if i == MaxIgnoredListed {
			fmt.Fprintf(b, " and %d more", len(items)-i)
			if opts.Lists != "" {
				fmt.Fprintf(b, " (all in %s)", listLink(opts, CellsList))
			}
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + it)
	}
	b.WriteString(".\n")
}

// writeCellGroups lists the cells of one status grouped by experiment,
// dataset and the first line of their reason.
func writeCellGroups(b *strings.Builder, res *Results, st harness.Status, title string, n *int, opts Options) {
	type key struct{ exp, ds, why string }
	groups := map[key][]string{}
	var keys []key
	for _, c := range res.Cells {
		if c.Prov.Status != st {
			continue
		}
		k := key{c.Prov.Experiment, c.Prov.Dataset, FirstLine(c.Prov.Error)}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c.Prov.Cell)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].exp != keys[j].exp {
			return keys[i].exp < keys[j].exp
		}
		if keys[i].ds != keys[j].ds {
			return keys[i].ds < keys[j].ds
		}
		return keys[i].why < keys[j].why
	})
	for _, k := range keys {
		*n++
		ids := groups[k]
		sort.Strings(ids)
		fmt.Fprintf(b, "- %s: %d cell(s) of %s on `%s`: %s. Cells:", title, len(ids), k.exp, k.ds, k.why)
		items := make([]string, len(ids))
		for i, id := range ids {
			items[i] = "`" + id + "`"
		}
		writeListed(b, items, opts)
	}
}

func writeRefDiags(b *strings.Builder, res *Results, opts Options) {
	d := RefDiags(res)
	b.WriteString("## HMC reference diagnostics\n\n")
	b.WriteString(DecisionLink(opts, "HMC's capped chains"))
	if len(d) == 0 {
		b.WriteString("No reference diagnostics in the results.\n")
		return
	}
	b.WriteString("A reference is flagged when its max split-R̂ exceeds 1.01 or its min bulk ESS is below 400.\n\n")
	pred := false
	for _, r := range d {
		pred = pred || r.Pred != nil
	}
	if !pred {
		b.WriteString("| dataset | split | used by | max R̂ | min ESS | flagged | reasons |\n|---|---|---|---|---|---|---|\n")
		for _, r := range d {
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s |\n", r.Dataset, r.Split, strings.Join(r.Experiments, ", "), FormatG(r.MaxRhat), FormatG(r.MinESS), YesNo(r.Flagged), strings.Join(r.Reasons, "; "))
		}
		return
	}
	b.WriteString("Parameter space (every coordinate of the draws) and, where fmmd2 is evaluated, function space: the same statistics on the network's " +
		"standardised outputs at the fmmd2 test inputs (max over inputs of R̂, min of ESS), by the same thresholds. Hidden-unit permutations " +
		"leave the outputs unchanged, so chains in permuted copies of one mode agree on them.\n\n")
	b.WriteString("| dataset | split | used by | max R̂ | min ESS | flagged | reasons | predictions: inputs | max R̂ | min ESS | flagged |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range d {
		pi, pr, pe, pf := "—", "—", "—", "—"
		if p := r.Pred; p != nil {
			pi, pr, pe, pf = fmt.Sprint(p.Inputs), FormatG(p.MaxRhat), FormatG(p.MinESS), YesNo(p.Flagged)
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Dataset, r.Split, strings.Join(r.Experiments, ", "),
			FormatG(r.MaxRhat), FormatG(r.MinESS), YesNo(r.Flagged), strings.Join(r.Reasons, "; "), pi, pr, pe, pf)
	}
}

// SortedKeys returns the keys of m, sorted.
func SortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
