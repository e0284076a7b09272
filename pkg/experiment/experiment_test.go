package experiment

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/internal/mirror"
	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/harness"
)

// kinds, datasets and metrics every experiment file may name.
var (
	wantKinds    = []string{KindSVGD, KindSGLD, KindSP, KindMMDFW, KindHMC}
	wantMetrics  = []string{Accuracy, TestLL, RMSE, MMD2, MMD2Exact, KSD2}
	wantDatasets = []string{"gauss2d", "gauss10d", "covertype", "bostonHousing", "concrete", "energy", "kin8nm",
		"naval-propulsion-plant", "power-plant", "protein-tertiary-structure", "wine-quality-red", "yacht",
		"year-prediction-MSD"}
)

// TestRegistered loads a file naming every kind, dataset and metric into
// testRegistry: the strict loader rejects any name not registered.
func TestRegistered(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "id = \"names\"\ndatasets = [%s]\nsplits = [1]\n", quoteAll(wantDatasets))
	fmt.Fprintf(&b, "[eval]\nmetrics = [%s]\n", quoteAll(wantMetrics))
	for _, k := range wantKinds {
		fmt.Fprintf(&b, "[methods.m-%s]\nkind = %q\n", k, k)
	}
	e, err := harness.Load(testRegistry, "names.toml", []byte(b.String()), "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(harness.Cells(e)), len(wantKinds)*len(wantDatasets); got != want {
		t.Errorf("%d cells, want %d", got, want)
	}
	// A name that is not registered is refused, so the test above can fail.
	bad := strings.Replace(b.String(), `"gauss2d"`, `"gauss3d"`, 1)
	if _, err := harness.Load(testRegistry, "names.toml", []byte(bad), ""); err == nil {
		t.Error("unknown dataset gauss3d accepted")
	}
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// TestSettingsValidation checks that a misspelt or out-of-range setting is
// caught at load time with its key.
func TestSettingsValidation(t *testing.T) {
	for _, tc := range []struct{ settings, key string }{
		{`kind = "svgd"` + "\nsettings = { init = \"map\" }", "init"},
		{`kind = "svgd"` + "\nsettings = { step_size = -1.0 }", "step"},
		{`kind = "sgld"` + "\nsettings = { gamma = 0.4 }", "gamma"},
		{`kind = "mmdfw"` + "\nsettings = { weights = \"bqq\" }", "weights"},
		{`kind = "mmdfw"` + "\nsettings = { features = 100 }", "features"},
		{`kind = "hmc"` + "\nsettings = { target_accept = 1.5 }", "target_accept"},
		{`kind = "sp"` + "\nsettings = { beta = 0.5 }", "beta"},
		{`kind = "sp"` + "\nsettings = { betta = -0.5 }", "betta"},
		// The packages' own Validate, at the line of the key.
		{`kind = "mmdfw"` + "\nsettings = { lmo_steps = -5 }", "v.toml:8: key methods.m.settings.lmo_steps: -5: must not be negative"},
		{`kind = "mmdfw"` + "\nsettings = { pool_iterations = -1 }", "pool_iterations"},
		{`kind = "mmdfw"` + "\nsettings = { start = \"given\" }", "start"},
		{`kind = "mmdfw"` + "\nsettings = { direction = \"sideways\" }", "direction"},
		{`kind = "svgd"` + "\nsettings = { alpha = 1.0 }", "v.toml:8: key methods.m.settings.alpha"},
		{`kind = "sgld"` + "\nsettings = { chains = -4 }", "v.toml:8: key methods.m.settings.chains"},
		{`kind = "sgld"` + "\nsettings = { iterations = 100, burn_in = 100 }", "burn_in"},
		{`kind = "sp"` + "\nsettings = { candidates = -3 }", "v.toml:8: key methods.m.settings.candidates"},
		{`kind = "hmc"` + "\nsettings = { metric = \"sparse\" }", "v.toml:8: key methods.m.settings.metric"},
		{`kind = "hmc"` + "\nsettings = { init = \"given\" }", "init"},
	} {
		src := "id = \"v\"\ndatasets = [\"gauss2d\"]\nsplits = [1]\n[eval]\nmetrics = [\"mmd2\"]\n[methods.m]\n" + tc.settings + "\n"
		_, err := harness.Load(testRegistry, "v.toml", []byte(src), "")
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: error %v, want one naming %s", tc.settings, err, tc.key)
		}
	}
}

// wantCells is the number of cells of every experiment file per profile.
var wantCells = map[string]map[string]int{
	// (4 paper + 4 tuned methods + SP from the MAP) × 5 splits; quick: 1 split.
	"fig1a": {"quick": 12, "full": 60},
	// (4 MMD-FW + 6 SVGD counts + SP, then 2 tuned MMD-FW + 6 tuned SVGD
	// counts + tuned SP) × 5 splits; quick: 4 + 3 + 1 + 2 + 3 + 1.
	"fig1b": {"quick": 24, "full": 180},
	// 9 arms (4 MMD-FW, 3 SVGD, 2 starts alone) × 5 splits; quick: 1
	// split.
	"fig2a": {"quick": 9, "full": 45},
	// (2 MMD-FW + 5 SVGD counts) × 5; quick: 2 + 2.
	"fig2b": {"quick": 4, "full": 35},
	// 11 methods (4 MMD-FW, 3 SVGD, 2 starts alone, ols, constant) × 10
	// datasets × 5 splits; quick: 11 × 4 × 1.
	"table1": {"quick": 44, "full": 550},
	// (svgd-anchor, ols, constant) × 10 datasets × 5 splits; quick:
	// 3 × 2 datasets × 1 split.
	"svgd-anchor": {"quick": 6, "full": 150},
	// (4 methods × 3 datasets + 4 exact-direction methods, 2 BQ methods
	// with a pooled z and the pool's HMC pilot × 2 Gaussian datasets) × 5
	// splits; quick: 1 split.
	"rff": {"quick": 26, "full": 130},
	// 4 methods (3 MMD-FW series and the pool's HMC pilot) × 5 splits;
	// quick: 1 split.
	"bnn-rate": {"quick": 4, "full": 20},
	// 12 variants × 5 splits; quick: 1 split.
	"ablations": {"quick": 12, "full": 60},
	// 3 step sizes × 2 batch sizes × 5 splits; quick: 1 split.
	"tune-svgd": {"quick": 6, "full": 30},
	// (6 SVGD + 6 MMD-FW configurations) × 9 datasets × split 0; quick:
	// 12 × 2 datasets.
	"tune-bnn": {"quick": 24, "full": 108},
	// (10 MMD-FW + 10 SVGD × 6 counts (quick: 1) + 10 SP + 15 SGLD) × 2
	// tuning splits; quick: one split.
	"tune-covertype": {"quick": 45, "full": 190},
	// 2 readings of the paper's MMD-FW × 9 datasets × split 0; quick:
	// 2 × 2 datasets.
	"tune-paper": {"quick": 4, "full": 18},
	// 4 MMD-FW configurations, one tuning split.
	"tune-paper-covertype": {"quick": 4, "full": 4},
	// 5 methods × 3 counts × 13 posteriors × 5 seeds; quick: 5 methods,
	// 1 count, 1 posterior, 1 seed.
	"posteriordb": {"quick": 5, "full": 975},
}

// TestExperimentFiles loads every experiments/*.toml strictly under both
// profiles and checks the cells they expand to.
func TestExperimentFiles(t *testing.T) {
	files, err := filepath.Glob("../../experiments/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range files {
		for _, profile := range harness.Profiles {
			e, err := harness.LoadFile(testRegistry, f, profile)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			if profile == "full" {
				ids = append(ids, e.ID)
			}
			if base := strings.TrimSuffix(filepath.Base(f), ".toml"); e.ID != base {
				t.Errorf("%s: id %q, want the file name", f, e.ID)
			}
			want, ok := wantCells[e.ID][profile]
			if got := len(harness.Cells(e)); !ok || got != want {
				t.Errorf("%s --profile %s: %d cells, want %d", f, profile, got, want)
			}
			// Tuning files read validation rows only; no other file may.
			if tune := strings.HasPrefix(e.ID, "tune-"); tune != (e.Role == harness.RoleTuning) || tune != e.Eval.RowsSpec().HeldOut() {
				t.Errorf("%s: role %q on %s rows; tune-* files, and only they, are tuning experiments on held-out training rows", f, e.Role, e.Eval.RowsSpec())
			}
			timed := e.ID == "fig1a" || e.ID == "fig2a" || e.ID == "table1"
			if e.Timed != timed {
				t.Errorf("%s: timed = %v, want %v", f, e.Timed, timed)
			}
			for _, m := range e.Eval.Metrics {
				if m == MMD2 && e.Reference == nil && !allGauss(e.Datasets) {
					t.Errorf("%s: mmd2 on real data without a [reference]", f)
				}
			}
		}
	}
	sort.Strings(ids)
	var want []string
	for id := range wantCells {
		want = append(want, id)
	}
	sort.Strings(want)
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("experiment files %v, want %v", ids, want)
	}
}

func allGauss(ds []string) bool {
	for _, d := range ds {
		if !strings.HasPrefix(d, "gauss") {
			return false
		}
	}
	return true
}

// TestTuneCovertype checks the tuning protocol of tune-covertype (the same
// hyper-settings per method kind, each offered from every start the kind
// can take, one gradient budget, two splits reserved for tuning, fig1b's
// reference) and that fig1a's and
// fig1b's tuned arms run exactly the configurations it chose.
func TestTuneCovertype(t *testing.T) {
	tune, err := harness.LoadFile(testRegistry, "../../experiments/tune-covertype.toml", "full")
	if err != nil {
		t.Fatal(err)
	}
	if tune.Budget.GradEvals <= 0 || tune.Budget.Seconds != 0 || tune.Budget.Steps != 0 {
		t.Errorf("budget %+v, want a gradient-evaluation budget only", tune.Budget)
	}
	for _, s := range tune.Splits {
		if s < harness.TuningSplits {
			t.Errorf("split %d is a reported split", s)
		}
	}
	perKind := map[string]int{}
	byName := map[string]*harness.Method{}
	// Each hyper-setting (the settings less the start's keys) of a kind
	// appears once from every start the kind can take: the prior; the MAP
	// itself (MMD-FW's first particle, SP's first candidate pool, SGLD's
	// chains with init_scale = -1); Laplace draws at it (SVGD, whose copies of
	// one point would never separate, and SGLD's chains).
	offered := map[string][]string{KindMMDFW: {"prior", "map"}, KindSP: {"prior", "map"},
		KindSVGD: {"prior", "laplace"}, KindSGLD: {"prior", "map", "laplace"}}
	starts := map[string]map[string]int{}
	for _, m := range tune.Methods {
		perKind[m.Kind]++
		byName[m.Name] = m
		var set map[string]any
		b, _ := json.Marshal(m.Settings)
		if err := json.Unmarshal(b, &set); err != nil {
			t.Fatal(err)
		}
		class := "prior"
		switch {
		case set["start"] == "map", set["map"] == true, set["init"] == "map" && set["init_scale"] == -1.0:
			class = "map"
		case set["init"] == "laplace":
			class = "laplace"
		case set["start"] == "prior", set["init"] == nil && set["start"] == nil && set["map"] == nil:
		default:
			t.Errorf("%s: start of %v is neither the prior, the MAP nor Laplace draws at it", m.Name, set)
		}
		for _, k := range []string{"start", "map", "init", "init_scale"} {
			delete(set, k)
		}
		hyper, _ := json.Marshal(set)
		key := m.Kind + " " + string(hyper)
		if starts[key] == nil {
			starts[key] = map[string]int{}
		}
		starts[key][class]++
	}
	for k, want := range offered {
		if perKind[k] != 5*len(want) {
			t.Errorf("%d %s configurations, want 5 hyper-settings × %d starts (%v)", perKind[k], k, len(want), perKind)
		}
	}
	for key, by := range starts {
		want := offered[strings.Fields(key)[0]]
		ok := len(by) == len(want)
		for _, c := range want {
			ok = ok && by[c] == 1
		}
		if !ok {
			t.Errorf("%s: starts %v, want one from each of %v", key, by, want)
		}
	}
	if len(tune.Splits) != 2 {
		t.Errorf("splits %v, want two tuning splits", tune.Splits)
	}
	fig1b, err := harness.LoadFile(testRegistry, "../../experiments/fig1b.toml", "full")
	if err != nil {
		t.Fatal(err)
	}
	ref := func(r *harness.Reference) string {
		b, _ := json.Marshal(struct {
			K string
			N int
			S any
		}{r.Kind, r.Particles, r.Settings})
		return string(b)
	}
	if ref(tune.Reference) != ref(fig1b.Reference) {
		t.Errorf("reference %s, want fig1b's %s", ref(tune.Reference), ref(fig1b.Reference))
	}
	chosen := map[string]map[string]string{
		"fig1a": {"mmdfw-tuned": "mmdfw-n025-equal", "svgd-tuned": "svgd-e01-full-laplace",
			"sp-tuned": "sp-map-nm100", "sgld-tuned": "sgld-const-2e-5"},
		"fig1b": {"mmdfw-tuned": "mmdfw-n0125-equal", "mmdfw-tuned-bq": "mmdfw-n025-bq",
			"svgd-tuned": "svgd-e01-full-laplace", "sp-tuned": "sp-map-nm100"},
	}
	for id, arms := range chosen {
		e, err := harness.LoadFile(testRegistry, "../../experiments/"+id+".toml", "full")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range e.Methods {
			name, ok := arms[m.Name]
			if !ok {
				continue
			}
			delete(arms, m.Name)
			c := byName[name]
			got, _ := json.Marshal(m.Settings)
			want, _ := json.Marshal(c.Settings)
			if m.Kind != c.Kind || string(got) != string(want) {
				t.Errorf("%s %s: %s %s, want %s's %s %s", id, m.Name, m.Kind, got, name, c.Kind, want)
			}
		}
		for arm := range arms {
			t.Errorf("%s has no method %s", id, arm)
		}
	}
}

// TestSharedReference checks that the experiments measuring MMD² on
// Covertype use one reference table per profile, so that one HMC run per
// split serves them all.
func TestSharedReference(t *testing.T) {
	for _, profile := range harness.Profiles {
		var first string
		for _, id := range []string{"fig1b", "rff", "ablations"} {
			e, err := harness.LoadFile(testRegistry, "../../experiments/"+id+".toml", profile)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(struct {
				K string
				N int
				S any
				E int64
			}{e.Reference.Kind, e.Reference.Particles, e.Reference.Settings, e.Seed})
			if first == "" {
				first = string(b)
			} else if string(b) != first {
				t.Errorf("profile %s: %s reference %s differs from fig1b's %s", profile, id, b, first)
			}
		}
	}
}

// sharedData returns the staged data folder, or skips.
func sharedData(t *testing.T) string {
	t.Helper()
	dir, ok := mirror.Shared()
	if !ok {
		t.Skip("no staged data beside the module (../shared/data)")
	}
	return dir
}

// result is the last value of each metric of a cell, and its whole series.
type result struct {
	last   map[string]float64
	series map[string][]float64
	steps  map[string][]int
	prov   *harness.Provenance
}

// runExp runs the experiment src on the data folder dir ("" for the
// default) in a temporary results folder and returns every cell's results
// by method name.
func runExp(t *testing.T, dir, src string) map[string]result {
	t.Helper()
	e, err := harness.Load(testRegistry, "test.toml", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	r := harness.NewRunner(testRegistry, harness.Options{Results: t.TempDir(), DataDir: dir, Jobs: 2})
	cells := harness.Plan([]*harness.Experiment{e})
	sum, err := r.Run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed > 0 || sum.Skipped > 0 {
		t.Fatalf("%v", sum)
	}
	out := map[string]result{}
	for _, c := range cells {
		csvPath, provPath := r.Paths(c)
		p, err := harness.ReadProvenance(provPath)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		res := result{last: map[string]float64{}, series: map[string][]float64{}, steps: map[string][]int{}, prov: p}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		for _, row := range rows[1:] {
			v, _ := strconv.ParseFloat(row[col["value"]], 64)
			step, _ := strconv.Atoi(row[col["step"]])
			m := row[col["metric"]]
			res.last[m] = v
			res.series[m] = append(res.series[m], v)
			res.steps[m] = append(res.steps[m], step)
		}
		out[c.Method.Name+"/"+c.Dataset] = res
	}
	return out
}

func finiteAll(t *testing.T, name string, r result) {
	t.Helper()
	for m, vs := range r.series {
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: %s has a non-finite value %v", name, m, v)
			}
		}
	}
}

func summaryOf(t *testing.T, r result) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(r.prov.Summary, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCovertypeEndToEnd runs a tiny cell of each method on the staged
// Covertype prefix.
func TestCovertypeEndToEnd(t *testing.T) {
	dir := sharedData(t)
	res := runExp(t, dir, `
id = "e2e"
datasets = ["covertype"]
splits = [1]
[eval]
metrics = ["accuracy", "test_ll"]
every = 50
[methods.svgd]
kind = "svgd"
particles = [20]
settings = { iterations = 200, step_size = 0.05 }
[methods.sgld]
kind = "sgld"
particles = [20]
settings = { iterations = 1000 }
[methods.sp]
kind = "sp"
particles = [3]
settings = { map = true, nelder_mead_evals = 20, candidates = 5 }
[methods.mmdfw]
kind = "mmdfw"
particles = [5]
settings = { start = "map", lmo_steps = 20, batch = 100 }
`)
	for name, r := range res {
		finiteAll(t, name, r)
		// A constant predictor scores the majority share (≈ 0.51 on
		// this prefix); 0.6 needs a fitted model.
		if a := r.last[Accuracy]; !(a > 0.6 && a <= 1) {
			t.Errorf("%s: accuracy %v, want above 0.6", name, a)
		}
		if ll := r.last[TestLL]; !(ll < 0 && ll > math.Log(0.5)-0.2) {
			t.Errorf("%s: test log-likelihood %v, want in (log ½ − 0.2, 0)", name, ll)
		}
		s := summaryOf(t, r)
		if s["dataset_label"] != "Covertype (20,000-row prefix)" {
			t.Errorf("%s: dataset_label %v", name, s["dataset_label"])
		}
	}
	for _, name := range []string{"sp/covertype", "mmdfw/covertype"} {
		if s := summaryOf(t, res[name]); s["map"] == nil {
			t.Errorf("%s from the MAP: no map in the summary", name)
		}
	}
}

// TestReferenceEndToEnd runs a tiny HMC reference on Covertype and checks
// that mmd2 against it is finite and positive and that its diagnostics
// reach the cell's provenance summary.
func TestReferenceEndToEnd(t *testing.T) {
	dir := sharedData(t)
	res := runExp(t, dir, `
id = "e2e"
datasets = ["covertype"]
splits = [1]
[eval]
metrics = ["mmd2"]
log = true
[reference]
kind = "hmc"
particles = 40
settings = { chains = 4, warmup = 20, max_steps = 8, init_scale = 0.1 }
[methods.svgd]
kind = "svgd"
particles = [10]
settings = { iterations = 50, step_size = 0.05 }
`)
	r := res["svgd/covertype"]
	finiteAll(t, "svgd/covertype", r)
	if v := r.last[MMD2]; !(v > 0) {
		t.Errorf("mmd2 %v, want positive", v)
	}
	ref, ok := summaryOf(t, r)["reference"].(map[string]any)
	if !ok {
		t.Fatal("no reference in the summary")
	}
	if ref["kind"] != KindHMC || ref["draws"] != float64(40) || !(ref["bandwidth"].(float64) > 0) {
		t.Errorf("reference %v: want kind hmc, 40 draws, a positive bandwidth", ref)
	}
	diag, ok := ref["diagnostics"].(map[string]any)
	if !ok {
		t.Fatalf("reference %v has no diagnostics", ref)
	}
	for _, k := range []string{"max_rhat", "min_ess", "flagged", "reasons", "per_chain"} {
		if _, ok := diag[k]; !ok {
			t.Errorf("reference diagnostics lack %s: %v", k, diag)
		}
	}
	// 10 draws per chain cannot pass R̂ ≤ 1.01 and ESS ≥ 400.
	if diag["flagged"] != true {
		t.Errorf("a 40-draw reference is not flagged: %v", diag)
	}
	// The chain count and the within-reference floor are recorded.
	fl, _ := ref["floors"].(map[string]any)
	if ref["chains"] != float64(4) || fl == nil || !(fl[MMD2].(float64) > 0) {
		t.Errorf("reference %v: want 4 chains and a positive mmd2 floor", ref)
	}
}

// TestFunctionSpaceEndToEnd evaluates fmmd2 beside mmd2 on a small BNN
// against a short HMC reference: both positive, both floors and the
// reference's diagnostics on the predictions recorded.
func TestFunctionSpaceEndToEnd(t *testing.T) {
	dir := sharedData(t)
	res := runExp(t, dir, `
id = "e2e"
datasets = ["yacht"]
splits = [0]
[eval]
metrics = ["mmd2", "fmmd2"]
log = true
[reference]
kind = "hmc"
particles = 80
settings = { chains = 4, warmup = 50, max_steps = 16 }
[methods.svgd]
kind = "svgd"
particles = [5]
settings = { iterations = 50, step_size = 0.01, init = "model" }
`)
	r := res["svgd/yacht"]
	finiteAll(t, "svgd/yacht", r)
	if !(r.last[MMD2] > 0) || !(r.last[FMMD2] > 0) {
		t.Errorf("mmd2 %v, fmmd2 %v: want both positive", r.last[MMD2], r.last[FMMD2])
	}
	ref, _ := summaryOf(t, r)["reference"].(map[string]any)
	fl, _ := ref["floors"].(map[string]any)
	if fl == nil || !(fl[MMD2].(float64) > 0) || !(fl[FMMD2].(float64) > 0) {
		t.Errorf("floors %v: want positive mmd2 and fmmd2 floors", ref["floors"])
	}
	pr, _ := ref["predictions"].(map[string]any)
	// yacht's split 0 has 31 test rows, fewer than FunctionInputs.
	if pr == nil || pr["inputs"] != float64(min(31, FunctionInputs)) || pr["flagged"] != true || !(pr["bandwidth"].(float64) > 0) {
		t.Errorf("predictions %v: want 31 inputs, flagged (20 draws per chain), a positive bandwidth", pr)
	}
	if _, ok := pr["max_rhat"].(float64); !ok {
		t.Errorf("predictions %v: no max R̂", pr)
	}
}

// TestGaussianEndToEnd runs MMD-FW with RBF and RFF kernels on the exact
// 2-d Gaussian: the exact MMD² must fall by a factor 10 from the first
// particle to the 30th.
func TestGaussianEndToEnd(t *testing.T) {
	res := runExp(t, "", `
id = "e2e"
datasets = ["gauss2d"]
splits = [1]
[eval]
metrics = ["mmd2_exact", "mmd2"]
log = true
[methods.rbf]
kind = "mmdfw"
particles = [30]
settings = { lmo_steps = 50 }
[methods.rff]
kind = "mmdfw"
particles = [30]
settings = { lmo_steps = 50, kernel = "rff", features = 200 }
`)
	for name, r := range res {
		finiteAll(t, name, r)
		s := r.series[MMD2Exact]
		if r.steps[MMD2Exact][0] != 1 || len(s) < 3 {
			t.Fatalf("%s: steps %v", name, r.steps[MMD2Exact])
		}
		if !(s[len(s)-1] < s[0]/10) {
			t.Errorf("%s: exact MMD² %v, want a fall by 10 over 30 particles", name, s)
		}
		// On a Gaussian target mmd2 is the exact MMD².
		if a, b := r.last[MMD2], r.last[MMD2Exact]; a != b {
			t.Errorf("%s: mmd2 %v != mmd2_exact %v", name, a, b)
		}
	}
}

// TestRegressionEndToEnd runs SVGD on a small UCI set: RMSE on the original
// scale must beat the constant predictor (the training mean), whose RMSE is
// the test responses' spread.
func TestRegressionEndToEnd(t *testing.T) {
	dir := sharedData(t)
	res := runExp(t, dir, `
id = "e2e"
datasets = ["yacht"]
splits = [0]
[eval]
metrics = ["rmse", "test_ll"]
every = 100
[methods.svgd]
kind = "svgd"
particles = [10]
settings = { iterations = 500, step_size = 0.01, init = "model" }
[methods.mmdfw]
kind = "mmdfw"
particles = [10]
settings = { start = "model", weights = "stein", lmo_steps = 100, noise = 0.035, step_size = 0.01 }
`)
	reg, err := data.LoadRegression(dir, "yacht", 0)
	if err != nil {
		t.Fatal(err)
	}
	var m, ss float64
	for _, y := range reg.YTest {
		m += reg.Unscale(y)
	}
	m /= float64(len(reg.YTest))
	for _, y := range reg.YTest {
		ss += (reg.Unscale(y) - m) * (reg.Unscale(y) - m)
	}
	spread := math.Sqrt(ss / float64(len(reg.YTest)))
	for name, r := range res {
		finiteAll(t, name, r)
		if rmse := r.last[RMSE]; !(rmse > 0 && rmse < 0.8*spread) {
			t.Errorf("%s: rmse %v, want below 0.8 × the test spread %v", name, rmse, spread)
		}
	}
}
