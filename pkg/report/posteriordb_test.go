package report

import (
	"bytes"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/experiment"
	"github.com/mmdfw/mmdfw/pkg/harness"
)

// wiring is the registry of the wiring (pkg/experiment), whose kinds'
// traits and run-time checks the section's tests read the fixture cells
// by, as the report reads the cells of a registry's results.
var wiring = func() *harness.Registry {
	r := harness.NewRegistry()
	experiment.Register(r)
	return r
}()

// pdbKinds are the traits the wiring gives the method kinds.
var pdbKinds = wiring.Kinds()

// pdbTestCell is a finished cell of the posteriordb benchmark with the
// given final metrics, MMD² floor, cost and flag codes; snaps are extra
// earlier snapshots (gradient evaluations → MMD²).
type pdbTestCell struct {
	method, kind, ds string
	split, n         int
	meanErr, lo, hi  float64
	mmd2, floor      float64
	grads            int64
	flags            []string
	snaps            map[int64]float64
	// diag are recorded diagnostic values; steps, when set, HMC's adapted
	// step size per chain (summary.per_chain).
	diag  map[string]float64
	steps []float64
	// settings are the recorded settings, nil for none.
	settings map[string]any
}

func (p pdbTestCell) cell(budget int64) *Cell {
	prov := &harness.Provenance{
		Experiment: PDBExperiment, Method: p.method, Kind: p.kind, Dataset: p.ds, Split: p.split, N: p.n,
		Status: harness.Done, GradEvals: p.grads, Seconds: float64(p.grads) / 1e6, Steps: p.n,
	}
	prov.Cell = PDBExperiment + "/" + p.method + "/" + p.ds
	if p.settings != nil {
		prov.Settings = p.settings
	}
	prov.KeyDoc.Budget.GradEvals = budget
	if len(p.flags) > 0 || len(p.diag) > 0 {
		prov.Diagnostics = &harness.Diagnostics{Values: map[string]harness.DiagValue{}}
		for _, f := range p.flags {
			prov.Diagnostics.Flags = append(prov.Diagnostics.Flags, harness.DiagFlag{Code: f, Reason: f + " reason"})
		}
		for k, v := range p.diag {
			prov.Diagnostics.Values[k] = harness.DiagValue(v)
		}
	}
	c := &Cell{Prov: prov, Traits: pdbKinds[p.kind], Summary: map[string]any{
		"reference": map[string]any{"draws": 10000.0, "floors": map[string]any{pdbMMD2: p.floor}},
	}}
	if p.steps != nil {
		// The reference sampler's summary: its chains, no floor.
		var pc []any
		for _, e := range p.steps {
			pc = append(pc, map[string]any{"step_size": e})
		}
		c.Summary = map[string]any{"chains": float64(len(p.steps)), "per_chain": pc}
	}
	step := 1
	for _, g := range slices.Sorted(maps.Keys(p.snaps)) {
		c.Rows = append(c.Rows, Row{Step: step, GradEvals: g, Metric: pdbMMD2, Value: p.snaps[g]},
			Row{Step: step, GradEvals: g, Metric: pdbMeanErr, Value: 9})
		step++
	}
	for _, r := range []struct {
		m string
		v float64
	}{{pdbMMD2, p.mmd2}, {pdbMeanErr, p.meanErr}, {pdbSDMin, p.lo}, {pdbSDMax, p.hi}} {
		c.Rows = append(c.Rows, Row{Step: step, GradEvals: p.grads, Metric: r.m, Value: r.v})
	}
	return c
}

// pdbFixture: two posteriors, four methods, five seeds, N = 10, 30 and
// 100. MMD-FW's MMD² is 0.1/N exactly (slope −1), SVGD's 0.2/N, Stein
// Points' 0.05/N at twice MMD-FW's cost; HMC is close on every seed, with
// the flags "rhat" and "ess" (and "draws" at N = 10) that its ⌈N/4⌉ draws
// per chain raise at every run, except on "b" at seed 3, where one chain
// is stuck (step size 10⁻⁶⁰) and the set 20 sd off; MMD-FW reaches its
// ceiling on every seed, as good in KSD² as 2N independent draws (not
// counted); SVGD is silently off on posterior "b" at seed 2 (mean err 2);
// Stein Points is off on "b", flagged "ceiling" there with the KSD² of
// N/2 independent draws.
func pdbFixture(budget int64) []*Cell {
	var cells []*Cell
	for _, ds := range []string{"posteriordb.a", "posteriordb.b"} {
		for s := 1; s <= 5; s++ {
			for _, n := range []int{10, 30, 100} {
				fn := float64(n)
				per := float64((n + 3) / 4)
				hmc := pdbTestCell{method: "hmc", kind: "hmc", ds: ds, split: s, n: n, meanErr: 0.05, lo: 0.95, hi: 1.05,
					mmd2: 0.01 / fn, floor: 0.001, grads: 500000, flags: []string{"rhat", "ess"},
					diag:  map[string]float64{"iterations": per, "rhat_max": 1.2, "ess_bulk_min": 0.5 * 4 * per},
					steps: []float64{0.6, 0.7, 0.65, 0.68}}
				if n == 10 {
					hmc.flags, hmc.diag = []string{"draws"}, map[string]float64{"iterations": per}
				}
				if ds == "posteriordb.b" && s == 3 {
					hmc.meanErr, hmc.hi, hmc.steps = 20, 30, []float64{0.6, 1e-60, 0.65, 0.68}
				}
				fw := pdbTestCell{method: "mmdfw", kind: "mmdfw", ds: ds, split: s, n: n, meanErr: []float64{0.1, 0.2, 0.3, 0.2, 0.2}[s-1], lo: 0.9, hi: 1.1,
					mmd2: 0.1 / fn, floor: 0.001, grads: 10000, flags: []string{"ceiling"},
					diag:  map[string]float64{"particles": fn, "ksd_size": 2 * fn},
					snaps: map[int64]float64{1000: 0.5, 5000: 0.3}}
				sv := pdbTestCell{method: "svgd", kind: "svgd", ds: ds, split: s, n: n, meanErr: 0.1, lo: 0.8, hi: 1.2,
					mmd2: 0.2 / fn, floor: 0.001, grads: 20000}
				if ds == "posteriordb.b" && s == 2 {
					sv.meanErr = 2
				}
				sp := pdbTestCell{method: "sp", kind: "sp", ds: ds, split: s, n: n, meanErr: 0.1, lo: 0.9, hi: 1.1,
					mmd2: 0.05 / fn, floor: 0.001, grads: 20000}
				if ds == "posteriordb.b" {
					sp.lo, sp.flags, sp.diag = 0.4, []string{"ceiling"}, map[string]float64{"points": fn, "ksd_size": fn / 2}
				}
				for _, p := range []pdbTestCell{hmc, fw, sv, sp} {
					cells = append(cells, p.cell(budget))
				}
			}
		}
	}
	return cells
}

func pdbNear(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// The statistics over seeds: mean and range of each metric, MMD² over its
// floor, the sd ratios' extremes, and the close / flagged / silently off
// counts.
func TestPDBStats(t *testing.T) {
	stats := PDBStats(pdbFixture(0))
	if len(stats) != 2*4*3 {
		t.Fatalf("%d stats, want 24", len(stats))
	}
	find := func(ds, m string, n int) PDBStat {
		for _, s := range stats {
			if s.Dataset == ds && s.Method == m && s.N == n {
				return s
			}
		}
		t.Fatalf("no stat %s %s %d", ds, m, n)
		return PDBStat{}
	}
	fw := find("posteriordb.a", "mmdfw", 100)
	if fw.Seeds != 5 || !pdbNear(fw.MeanErr.Mean, 0.2) || !pdbNear(fw.MeanErr.Min, 0.1) || !pdbNear(fw.MeanErr.Max, 0.3) {
		t.Errorf("mmdfw mean err %+v, want 0.2 [0.1–0.3] over 5 seeds", fw.MeanErr)
	}
	if !pdbNear(fw.MMD2Rel.Mean, 1) || !pdbNear(fw.MMD2.Mean, 0.001) {
		t.Errorf("mmdfw MMD²/floor %v (MMD² %v), want 1 (0.001)", fw.MMD2Rel.Mean, fw.MMD2.Mean)
	}
	if fw.SDLow != 0.9 || fw.SDHigh != 1.1 || fw.Close != 5 || fw.Flagged != 0 || fw.SilentOff != 0 || fw.GradEvals != 10000 {
		t.Errorf("mmdfw %+v", fw)
	}
	if got := fw.MeanErr.String(); got != "0.2 [0.1–0.3]" {
		t.Errorf("interval %q, want 0.2 [0.1–0.3]", got)
	}
	sv := find("posteriordb.b", "svgd", 100)
	if sv.Close != 4 || sv.SilentOff != 1 || sv.Flagged != 0 || !pdbNear(sv.MeanErr.Max, 2) {
		t.Errorf("svgd on b: close %d, silently off %d, flagged %d, max err %v; want 4, 1, 0, 2", sv.Close, sv.SilentOff, sv.Flagged, sv.MeanErr.Max)
	}
	sp := find("posteriordb.b", "sp", 100)
	if sp.Close != 0 || sp.Flagged != 5 || sp.SilentOff != 0 || sp.SDLow != 0.4 || strings.Join(sp.Codes, ",") != "ceiling" {
		t.Errorf("sp on b: %+v", sp)
	}
	for _, n := range []int{10, 30, 100} {
		if hmc := find("posteriordb.a", "hmc", n); hmc.Close != 5 || hmc.Flagged != 0 || len(hmc.Codes) != 0 {
			t.Errorf("hmc on a, N = %d: %+v, want close and unflagged on 5 seeds", n, hmc)
		}
		if hmc := find("posteriordb.b", "hmc", n); hmc.Close != 4 || hmc.Flagged != 1 || hmc.SilentOff != 0 || strings.Join(hmc.Codes, ",") != "stuck" {
			t.Errorf("hmc on b, N = %d: %+v, want 4 close and 1 flagged stuck", n, hmc)
		}
	}

	// In the report's legend order: MMD-FW, SVGD, Stein Points, HMC.
	want := []string{
		"mmdfw (N = 100): close to the reference on 2 of 2 posteriors (every seed), flagged on 0 (at least one seed), silently off on 0.",
		"svgd (N = 100): close to the reference on 1 of 2 posteriors (every seed), flagged on 0 (at least one seed), silently off on 1 (b).",
		"sp (N = 100): close to the reference on 1 of 2 posteriors (every seed), flagged on 1 (at least one seed), silently off on 0.",
		"hmc (N = 100): close to the reference on 1 of 2 posteriors (every seed), flagged on 1 (at least one seed), silently off on 0.",
	}
	vs := PDBVerdicts(stats)
	if len(vs) != len(want) {
		t.Fatalf("%d verdicts, want %d", len(vs), len(want))
	}
	for i, v := range vs {
		if v.Sentence() != want[i] {
			t.Errorf("verdict %d:\n%s\nwant\n%s", i, v.Sentence(), want[i])
		}
	}
}

// The claims' arithmetic: the slope of log MMD² against log N, the
// posteriors won at equal N and the cost ratio.
func TestPDBClaims(t *testing.T) {
	stats := PDBStats(pdbFixture(0))
	sl := PDBSlopes(stats, "mmdfw")
	if len(sl) != 2 || !pdbNear(sl[0], -1) || !pdbNear(sl[1], -1) {
		t.Errorf("slopes %v, want [-1 -1]", sl)
	}
	if w, of, _ := PDBPairs(stats, "mmdfw", "svgd", 100); w != 2 || of != 2 {
		t.Errorf("mmdfw below svgd on %d of %d, want 2 of 2", w, of)
	}
	if w, of, r := PDBPairs(stats, "sp", "mmdfw", 10); w != 2 || of != 2 || !pdbNear(r, 2) {
		t.Errorf("sp below mmdfw on %d of %d at %v× the cost, want 2 of 2 at 2×", w, of, r)
	}
	if m := Median([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("median %v, want 2.5", m)
	}
}

// At a budget a cell is read at its last snapshot within it, or not at all
// when its first answer costs more.
func TestPDBAtBudget(t *testing.T) {
	cells := pdbFixture(1000000)
	if b := PDBBudgets(cells); len(b) != 4 || b[0] != 1e3 || b[1] != 1e4 || b[2] != 1e5 || b[3] != 1e6 {
		t.Fatalf("budgets %v, want [1e3 1e4 1e5 1e6]", b)
	}
	var fw, hmc []*Cell
	for _, c := range cells {
		if c.Prov.Dataset == "posteriordb.a" && c.Prov.N == 100 {
			switch c.Prov.Method {
			case "mmdfw":
				fw = append(fw, c)
			case "hmc":
				hmc = append(hmc, c)
			}
		}
	}
	if v, ok := pdbAtBudget(fw[0], pdbMMD2, 4999); !ok || v != 0.5 {
		t.Errorf("mmdfw at 4999: %v %v, want 0.5", v, ok)
	}
	if v, ok := pdbAtBudget(fw[0], pdbMMD2, 1e4); !ok || v != 0.001 {
		t.Errorf("mmdfw at 1e4: %v %v, want its final 0.001", v, ok)
	}
	if _, ok := pdbAtBudget(fw[0], pdbMMD2, 999); ok {
		t.Error("mmdfw has an answer before its first snapshot")
	}
	st := pdbBudgetStat(hmc, 1e5, 0.001)
	if st.Reached != 0 || st.MMD2Rel.String() != "–" {
		t.Errorf("hmc at 1e5: %+v, want no answer", st)
	}
	st = pdbBudgetStat(fw, 5000, 0.001)
	if st.Reached != 5 || !pdbNear(st.MMD2Rel.Mean, 300) {
		t.Errorf("mmdfw at 5000: %+v, want MMD²/floor 300 on 5 seeds", st)
	}
}

// The report writes the section with its tables and sentences, and the
// benchmark is not repeated among the other experiments.
func TestPDBSection(t *testing.T) {
	res := &Results{Dir: "results", Cells: pdbFixture(1000000)}
	var b bytes.Buffer
	if err := Write(&b, res, Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"## posteriordb\n",
		"10000/(4N) + 1/4: 250 at N = 10, 83.6 at N = 30, 25.2 at N = 100.",
		"| method | N = 10 | N = 30 | N = 100 |\n",
		"| hmc | 1 / 1 / 0 of 2 | 1 / 1 / 0 of 2 | 1 / 1 / 0 of 2 |\n",
		"| svgd | 1 / 0 / 1 of 2 | 1 / 0 / 1 of 2 | 1 / 0 / 1 of 2 |\n",
		"- svgd (N = 100): close to the reference on 1 of 2 posteriors (every seed), flagged on 0 (at least one seed), silently off on 1 (b).\n",
		"| a | mmdfw | 5 | 0.2 [0.1–0.3] | 0.9–1.1 | 1 | 1e+04 | 0.01 | 5/5 | – (and 5 recording ceiling, raised by the set-up at this N: not counted) |\n",
		"| b | sp | 5 | 0.1 | 0.4–1.1 | 0.5 | 2e+04 | 0.02 | 0/5 | 5: ceiling |\n",
		"| a | hmc | – | – | – | 0.1 |\n",
		"| a | hmc | 5 | 0.05 | 0.95–1.05 | 0.1 | 5e+05 | 0.5 | 5/5 | – (and 5 recording ess, rhat, raised by the set-up at this N: not counted) |\n",
		"| b | hmc | 5 | 4.04 [0.05–20] | 0.95–30 | 0.1 | 5e+05 | 0.5 | 4/5 | 1: stuck (and 5 recording ess, rhat, raised by the set-up at this N: not counted) |\n",
		"| a | mmdfw | 500 | 1 | 1 | 1 |\n",
		"A seed is flagged when its method flagged it, less the flags the benchmark's set-up raises at every run: HMC's R̂ and ESS on fewer than 400 draws in all",
		"; and MMD-FW's and Stein Points' \"ceiling\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out, "## Other experiments") {
		t.Error("the benchmark is repeated among the other experiments")
	}
	if strings.Contains(out, "Claim") {
		t.Error("the section without a plug-in speaks of claims")
	}
	// A plug-in that takes part extends the section (Extender), before
	// its links.
	b.Reset()
	if err := Write(&b, res, Options{Plugins: []Plugin{pdbExtender{}}}); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	if i, j := strings.Index(out, "## posteriordb\n"), strings.Index(out, "extended: posteriordb\n"); i < 0 || j < i {
		t.Errorf("the section is not extended by the plug-in (section at %d, extension at %d)", i, j)
	}
}

// pdbExtender is a plug-in that presents no experiment of its own but
// takes part and extends every section it is offered.
type pdbExtender struct{}

func (pdbExtender) Experiments(*Results) []string                { return []string{"none"} }
func (pdbExtender) Head(*Results) Head                           { return Head{} }
func (pdbExtender) Sections(*strings.Builder, *Results, Options) {}
func (pdbExtender) Plot(*Results, string) ([]string, error)      { return nil, nil }
func (pdbExtender) Name() string                                 { return "extender" }
func (pdbExtender) Extend(b *strings.Builder, _ *Results, id string, _ Options) {
	b.WriteString("extended: " + id + "\n")
}

// The flags the benchmark's set-up raises at every run do not count; those
// that say something about the run at its N do (pdbFlags, by the kinds'
// traits as the wiring registers them). Each cell is constructed with what
// a run records; the old rule counted every recorded flag.
func TestPDBSetupFlags(t *testing.T) {
	mixing, stuck := []float64{0.68, 0.74, 0.71, 0.7}, []float64{0.68, 2.6e-62, 0.74, 0.74}
	slow := []float64{0.72, 0.57, 0.74, 1.7e-4}   // a chain at the step cap that still moves
	belowCap := []float64{0.72, 0.57, 0.74, 7e-3} // 2π/0.007 = 898 steps, under 1024
	for _, c := range []struct {
		name string
		p    pdbTestCell
		want string
	}{
		{"hmc, 25 draws per chain that mix", pdbTestCell{kind: "hmc", n: 100, flags: []string{"rhat", "ess"},
			diag: map[string]float64{"iterations": 25, "rhat_max": 1.155, "ess_bulk_min": 47}, steps: mixing}, ""},
		{"hmc, 25 draws per chain, one chain stuck", pdbTestCell{kind: "hmc", n: 100, flags: []string{"rhat", "ess"},
			diag: map[string]float64{"iterations": 25, "rhat_max": 1.743, "ess_bulk_min": 9.5}, steps: stuck}, "stuck"},
		{"hmc, 3 draws per chain, one chain stuck", pdbTestCell{kind: "hmc", n: 10, flags: []string{"draws"},
			diag: map[string]float64{"iterations": 3}, steps: stuck}, "stuck"},
		{"hmc, 3 draws per chain that mix", pdbTestCell{kind: "hmc", n: 10, flags: []string{"draws"},
			diag: map[string]float64{"iterations": 3}, steps: mixing}, ""},
		{"hmc, 25 draws per chain, one chain slow", pdbTestCell{kind: "hmc", n: 100, flags: []string{"rhat", "ess"},
			diag: map[string]float64{"iterations": 25, "rhat_max": 1.2, "ess_bulk_min": 30}, steps: slow}, "capped"},
		{"hmc, 3 draws per chain, one chain at the step cap", pdbTestCell{kind: "hmc", n: 10, flags: []string{"draws"},
			diag: map[string]float64{"iterations": 3}, steps: slow}, "capped"},
		{"hmc, a run that recorded capped itself", pdbTestCell{kind: "hmc", n: 100, flags: []string{"rhat", "capped"},
			diag: map[string]float64{"iterations": 25}, steps: slow}, "capped"},
		{"hmc, one chain slow but under the cap", pdbTestCell{kind: "hmc", n: 100, flags: []string{"rhat", "ess"},
			diag: map[string]float64{"iterations": 25}, steps: belowCap}, ""},
		{"hmc, the same chain under a recorded cap of 512", pdbTestCell{kind: "hmc", n: 100, flags: []string{"rhat", "ess"},
			diag: map[string]float64{"iterations": 25}, steps: belowCap, settings: map[string]any{"max_steps": 512}}, "capped"},
		{"hmc, the same chain with a recorded integration time of 0.1", pdbTestCell{kind: "hmc", n: 100, flags: []string{"rhat", "ess"},
			diag: map[string]float64{"iterations": 25}, steps: slow, settings: map[string]any{"integration_time": 0.1}}, ""},
		{"hmc, 1000 draws per chain, chains that disagree", pdbTestCell{kind: "hmc", n: 4000, flags: []string{"rhat", "ess"},
			diag: map[string]float64{"iterations": 1000, "rhat_max": 1.05, "ess_bulk_min": 53}, steps: mixing}, "rhat,ess"},
		{"hmc, divergences at 25 draws", pdbTestCell{kind: "hmc", n: 100, flags: []string{"rhat", "divergences"},
			diag: map[string]float64{"iterations": 25, "rhat_max": 1.1}, steps: mixing}, "divergences"},
		{"mmdfw at its ceiling, as good as 695 independent draws", pdbTestCell{kind: "mmdfw", n: 100, flags: []string{"ceiling"},
			diag: map[string]float64{"particles": 100, "ksd_size": 695}}, ""},
		{"mmdfw at its ceiling, worse than 100 independent draws", pdbTestCell{kind: "mmdfw", n: 100, flags: []string{"ceiling"},
			diag: map[string]float64{"particles": 100, "ksd_size": 91.5}}, "ceiling"},
		{"mmdfw collapsed", pdbTestCell{kind: "mmdfw", n: 10, flags: []string{"ceiling", "collapse"},
			diag: map[string]float64{"particles": 10, "ksd_size": 11}}, "collapse"},
		{"sp at its ceiling, worse than 30 independent draws", pdbTestCell{kind: "sp", n: 30, flags: []string{"ceiling", "mode"},
			diag: map[string]float64{"points": 30, "ksd_size": 21.8}}, "ceiling,mode"},
		{"sgld at its ceiling", pdbTestCell{kind: "sgld", n: 100, flags: []string{"ceiling"}}, "ceiling"},
	} {
		p := c.p
		p.method, p.ds, p.split = p.kind, "posteriordb.a", 1
		if got := strings.Join(pdbFlags(p.cell(0)), ","); got != c.want {
			t.Errorf("%s: flags %q, want %q", c.name, got, c.want)
		}
	}
}

// Close widens with fewer particles as the errors of independent draws do:
// the section's bounds at N = 100, doubled (and squared) at N = 25.
func TestPDBCloseBounds(t *testing.T) {
	if e, lo, hi := pdbCloseBounds(100); e != 0.5 || lo != 0.5 || hi != 2 {
		t.Errorf("N = 100: %v, [%v, %v]; want 0.5, [0.5, 2]", e, lo, hi)
	}
	if e, lo, hi := pdbCloseBounds(25); !pdbNear(e, 1) || !pdbNear(lo, 0.25) || !pdbNear(hi, 4) {
		t.Errorf("N = 25: %v, [%v, %v]; want 1, [0.25, 4]", e, lo, hi)
	}
	if !pdbClose(10, 1.2, 0.3, 3) || pdbClose(100, 1.2, 0.3, 3) || pdbClose(10, 2, 0.3, 3) {
		t.Error("mean err 1.2, sd ratios 0.3–3: want close at N = 10 only; mean err 2 close at neither")
	}
}

// One flag, one story: a flag the benchmark's set-up raises (HMC's R̂ and
// ESS on 100 draws in all, MMD-FW's ceiling as good as 2N independent
// draws) is not counted by the posteriordb section, which says so in its
// table, and the flagged results say the same of each such cell.
func TestPDBSetupFlagsSaid(t *testing.T) {
	cells := pdbFixture(0)
	for _, s := range PDBStats(cells) {
		if s.Dataset != "posteriordb.a" || s.N != 100 {
			continue
		}
		switch s.Method {
		case "hmc":
			if s.Flagged != 0 || s.Setup != 5 || strings.Join(s.SetupCodes, ",") != "ess,rhat" {
				t.Errorf("hmc: flagged %d, set-up %d %v", s.Flagged, s.Setup, s.SetupCodes)
			}
		case "mmdfw":
			if s.Flagged != 0 || s.Setup != 5 || strings.Join(s.SetupCodes, ",") != "ceiling" {
				t.Errorf("mmdfw: flagged %d, set-up %d %v", s.Flagged, s.Setup, s.SetupCodes)
			}
		case "svgd":
			if s.Setup != 0 {
				t.Errorf("svgd: set-up %d", s.Setup)
			}
		}
	}
	var b strings.Builder
	writePosteriorDB(&b, &Results{Cells: cells}, Options{})
	if !strings.Contains(b.String(), "| – (and 5 recording ess, rhat, raised by the set-up at this N: not counted) |") {
		t.Errorf("the posteriordb table does not say HMC's set-up flags:\n%s", b.String())
	}
	b.Reset()
	writeFlagged(&b, &Results{Cells: cells}, false, Options{})
	if !strings.Contains(b.String(), "ceiling: ") || !strings.Contains(b.String(), "(ceiling: raised by the set-up at this N, not counted in the posteriordb section)") {
		t.Errorf("the flagged results do not say which flags the posteriordb section leaves out:\n%s", b.String()[:min(2000, b.Len())])
	}
}
