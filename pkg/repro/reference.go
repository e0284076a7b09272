package repro

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
	"github.com/mmdfw/mmdfw/pkg/metric"
)

func init() {
	register(&command{
		name:    "reference",
		summary: "summarise the cached reference samples of experiment files, per chain and per parameter",
		run:     referenceCmd,
	})
}

func referenceCmd(e *cli, args []string) error {
	cmd := newCellCmd(e, cellSpec{
		name: "reference",
		usage: []string{
			"usage: repro reference FILE... [--profile quick|full] [--results DIR] [--csv OUT]",
			"\nFor every reference sample the experiments use, read from the cache of the",
			"results directory (nothing is computed), prints a summary in Stan's habit:",
			"per chain the acceptance rate, the adapted step size, the divergences, the",
			"mean leapfrog steps and the warm-up and sampling draws; per parameter the",
			"mean, sd, the Monte Carlo standard error of the mean, the 5/50/95 %",
			"quantiles, the rank-normalised split-R̂ and the bulk and tail ESS.",
			"After make reproduce-quick, give --results quick/results (where the Makefile",
			"writes the quick profile's results).",
		},
		noKeyRevision: true,
	})
	csvOut := cmd.fs.String("csv", "", "also write the summary as CSV to `OUT`")
	cells, err := cmd.load(args)
	if err != nil {
		return err
	}
	sums, err := referenceSummaries(cmd.runner(Options{}), cells)
	if err != nil {
		return err
	}
	if err := printReferences(e.stdout, sums); err != nil {
		return err
	}
	resultsSet := false
	cmd.fs.Visit(func(f *flag.Flag) { resultsSet = resultsSet || f.Name == "results" })
	if h := quickResultsHint(*cmd.profile, *cmd.results, resultsSet, sums); h != "" {
		fmt.Fprintln(e.stderr, h)
	}
	if *csvOut != "" {
		var buf bytes.Buffer
		if err := writeReferenceCSV(&buf, sums); err != nil {
			return err
		}
		if err := atomicfile.Write(*csvOut, buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("--csv: %w", err)
		}
	}
	return nil
}

// quickResults is where `make reproduce-quick` (PROFILE=quick) writes the
// quick profile's results (the Makefile's $(OUT)results).
const quickResults = "quick/results"

// quickResultsHint says where the Makefile keeps the quick profile's results
// when references of the quick profile were looked for, not found, under
// the default results directory: `make reproduce-quick` writes them to
// quickResults, not to results. It returns "" otherwise.
func quickResultsHint(profile, results string, resultsSet bool, sums []*refSummary) string {
	if profile != "quick" || resultsSet {
		return ""
	}
	for _, s := range sums {
		if strings.HasPrefix(s.missing, "not cached") {
			return fmt.Sprintf("repro reference: looked under --results %s (the default); make reproduce-quick writes the quick profile's results to %s: add --results %s",
				results, quickResults, quickResults)
		}
	}
	return ""
}

// refSummary is the summary of one cached reference, or why there is none.
type refSummary struct {
	id, path string
	missing  string // why there is no summary: not cached, data missing…
	kind     string
	draws    int // kept draws in all
	chains   []HMCChain
	flagged  bool
	reasons  []string
	params   []paramSummary
}

// paramSummary are the per-parameter columns of Stan's summary.
type paramSummary struct {
	name                                           string
	mean, sd, mcse, q5, q50, q95, rhat, bulk, tail float64
}

// referenceSummaries summarises the references the cells use, each once, in
// the order of the cells.
func referenceSummaries(r *Runner, cells []*Cell) ([]*refSummary, error) {
	var out []*refSummary
	seen := map[string]bool{}
	for _, c := range cells {
		if c.Experiment.Reference == nil {
			continue
		}
		id, path, err := r.ReferenceArtefact(c)
		if err != nil {
			if errors.Is(err, ErrDataMissing) {
				key := "missing " + c.Experiment.ID + " " + c.Dataset + " " + strconv.Itoa(c.Split)
				if !seen[key] {
					seen[key] = true
					out = append(out, &refSummary{id: fmt.Sprintf("reference/%s/%s/s%d", c.Experiment.Reference.Kind, c.Dataset, c.Split), missing: "data missing: " + err.Error()})
				}
				continue
			}
			return nil, fmt.Errorf("%s: %w", c.ID, err)
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		s, err := summariseReference(id, path, c.Experiment.Reference.Kind)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// summariseReference reads one cached reference.
func summariseReference(id, path, kind string) (*refSummary, error) {
	s := &refSummary{id: id, path: path, kind: kind}
	set, raw, err := ReadReference(path)
	if errors.Is(err, fs.ErrNotExist) {
		s.missing = "not cached: no run has needed it yet"
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	var sum struct {
		Chains   int        `json:"chains"`
		PerChain []HMCChain `json:"per_chain"`
		Flagged  bool       `json:"flagged"`
		Reasons  []string   `json:"reasons"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &sum); err != nil {
			return nil, fmt.Errorf("%s: summary: %w", path, err)
		}
	}
	s.chains, s.flagged, s.reasons = sum.PerChain, sum.Flagged, sum.Reasons
	m := max(sum.Chains, 1)
	rows, d := set.X.Dims()
	s.draws = rows
	if rows%m != 0 {
		return nil, fmt.Errorf("%s: %d draws do not split into %d chains", path, rows, m)
	}
	// Rows are iteration-major: row i·m + c is draw i of chain c.
	n := rows / m
	chains := make([]*mat.Dense, m)
	for c := range chains {
		chains[c] = mat.NewDense(max(n, 1), d, nil)
		for i := 0; i < n; i++ {
			chains[c].SetRow(i, set.X.RawRowView(i*m+c))
		}
	}
	nan := func() []float64 {
		v := make([]float64, d)
		for j := range v {
			v[j] = math.NaN()
		}
		return v
	}
	rhat, bulk, tail, mcse := nan(), nan(), nan(), nan()
	if n >= 4 {
		rhat = metric.SplitRhat(chains, nil)
		bulk = metric.BulkESS(chains, nil)
		tail = metric.TailESS(chains, nil)
		mcse = metric.MCSE(chains, nil)
	}
	col := make([]float64, rows)
	for j := 0; j < d; j++ {
		mat.Col(col, j, set.X)
		var mean float64
		for _, v := range col {
			mean += v
		}
		mean /= float64(rows)
		var ss float64
		for _, v := range col {
			ss += (v - mean) * (v - mean)
		}
		slices.Sort(col)
		p := paramSummary{
			name: fmt.Sprintf("x[%d]", j), mean: mean, sd: math.Sqrt(ss / float64(rows-1)), mcse: mcse[j],
			rhat: rhat[j], bulk: bulk[j], tail: tail[j], q5: math.NaN(), q50: math.NaN(), q95: math.NaN(),
		}
		if rows > 0 {
			p.q5, p.q50, p.q95 = metric.Quantile(col, 0.05), metric.Quantile(col, 0.5), metric.Quantile(col, 0.95)
		}
		s.params = append(s.params, p)
	}
	return s, nil
}

func g4(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func f0(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// printReferences writes the summaries as aligned tables.
func printReferences(w io.Writer, sums []*refSummary) error {
	if len(sums) == 0 {
		_, err := fmt.Fprintln(w, "no experiment given has a [reference]")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for k, s := range sums {
		if k > 0 {
			fmt.Fprintln(tw)
		}
		if s.missing != "" {
			fmt.Fprintf(tw, "%s: %s\n", s.id, s.missing)
			continue
		}
		fmt.Fprintf(tw, "%s (%s, %d draws, %d chains) %s\n", s.id, s.kind, s.draws, max(len(s.chains), 1), s.path)
		if s.flagged {
			for _, r := range s.reasons {
				fmt.Fprintf(tw, "  flagged: %s\n", r)
			}
		}
		if len(s.chains) > 0 {
			fmt.Fprintln(tw, "chain\taccept\tadapt_accept\tstep_size\tdivergent\twarmup_divergent\tmean_steps\tgrad_calls\twarmup\tdraws\t")
			for c, ch := range s.chains {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%s\t%d\t%s\t%s\t\n", c, g4(ch.AcceptRate), orDash(ch.AdaptAccept), g4(ch.StepSize),
					ch.Divergences, ch.WarmupDivergences, g4(ch.MeanSteps), ch.GradCalls, intOrDash(ch.Warmup), intOrDash(ch.Draws))
			}
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, "param\tmean\tsd\tmcse\t5%\t50%\t95%\tR̂\tess_bulk\tess_tail\t")
		for _, p := range s.params {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", p.name, g4(p.mean), g4(p.sd), g4(p.mcse),
				g4(p.q5), g4(p.q50), g4(p.q95), g4(p.rhat), f0(p.bulk), f0(p.tail))
		}
	}
	return tw.Flush()
}

// orDash and intOrDash print "-" for a field a reference cached before it
// was recorded lacks.
func orDash(v float64) string {
	if v == 0 {
		return "-"
	}
	return g4(v)
}

func intOrDash(v int) string {
	if v == 0 {
		return "-"
	}
	return strconv.Itoa(v)
}

// referenceCSVHeader are the columns of --csv: one row per chain (row
// "chain") and per parameter (row "param"), the other row's columns empty.
var referenceCSVHeader = []string{"reference", "row", "name",
	"accept_rate", "adapt_accept", "step_size", "divergences", "warmup_divergences", "mean_steps", "grad_calls", "warmup", "draws",
	"mean", "sd", "mcse_mean", "q5", "q50", "q95", "rhat", "ess_bulk", "ess_tail"}

func writeReferenceCSV(w io.Writer, sums []*refSummary) error {
	cw := csv.NewWriter(w)
	cw.Write(referenceCSVHeader)
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, s := range sums {
		if s.missing != "" {
			continue
		}
		for c, ch := range s.chains {
			cw.Write([]string{s.id, "chain", strconv.Itoa(c),
				ff(ch.AcceptRate), ff(ch.AdaptAccept), ff(ch.StepSize), strconv.Itoa(ch.Divergences), strconv.Itoa(ch.WarmupDivergences),
				ff(ch.MeanSteps), strconv.FormatInt(ch.GradCalls, 10), strconv.Itoa(ch.Warmup), strconv.Itoa(ch.Draws),
				"", "", "", "", "", "", "", "", ""})
		}
		for _, p := range s.params {
			cw.Write([]string{s.id, "param", p.name, "", "", "", "", "", "", "", "", "",
				ff(p.mean), ff(p.sd), ff(p.mcse), ff(p.q5), ff(p.q50), ff(p.q95), ff(p.rhat), ff(p.bulk), ff(p.tail)})
		}
	}
	cw.Flush()
	return cw.Error()
}
