package experiment

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// gaussLogNormal is the test model: mu[1], mu[2] ~ N(m_j, s_j²) and
// sigma = exp(v), v ~ N(a, b²); on the unconstrained space (mu[1], mu[2],
// v) it is a Gaussian (the log-Jacobian of sigma = exp(v) turns the
// log-normal density of sigma into the normal density of v).
type gaussLogNormal struct {
	mean, sd [3]float64
}

func (g *gaussLogNormal) Dim() int { return 3 }

func (g *gaussLogNormal) LogProbGrad(x, grad []float64) float64 {
	var lp float64
	for j := range 3 {
		z := (x[j] - g.mean[j]) / g.sd[j]
		lp -= z * z / 2
		grad[j] = -z / g.sd[j]
	}
	return lp
}

// registerGaussModel registers the test model under the name "gauss_test"
// for the test's duration. Its Names are in another order than the
// reference's, so the wiring's mapping between the two is exercised.
func registerGaussModel(t *testing.T) {
	t.Helper()
	remove := pdbmodel.RegisterForTest("gauss_test", func(data map[string]json.RawMessage) (*pdbmodel.Model, error) {
		var m, s []float64
		var a, b float64
		for k, v := range map[string]any{"m": &m, "s": &s, "a": &a, "b": &b} {
			if err := json.Unmarshal(data[k], v); err != nil {
				return nil, fmt.Errorf("data %s: %v", k, err)
			}
		}
		if len(m) != 2 || len(s) != 2 {
			return nil, fmt.Errorf("data: m and s need 2 values")
		}
		g := &gaussLogNormal{mean: [3]float64{m[0], m[1], a}, sd: [3]float64{s[0], s[1], b}}
		var _ target.Target = g
		return &pdbmodel.Model{
			Name: "gauss_test", Target: g, Names: []string{"mu[1]", "mu[2]", "sigma"},
			Constrain: func(dst, u []float64) []float64 {
				if dst == nil {
					dst = make([]float64, 3)
				}
				dst[0], dst[1], dst[2] = u[0], u[1], math.Exp(u[2])
				return dst
			},
		}, nil
	})
	t.Cleanup(remove)
}

// writeZip writes a zip archive of one member.
func writeZip(t *testing.T, path, member string, content []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(member)
	if err == nil {
		_, err = w.Write(content)
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writePDB writes, in posteriordb's own layout under a new folder, the
// posterior gdata-gauss_test (the test model with exact reference draws:
// 10 chains of 200, names in the order sigma, mu[1], mu[2]) and
// gdata-nomodel (a model pkg/pdbmodel does not hold), and returns the
// folder.
func writePDB(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	base := filepath.Join(root, "posterior_database")
	data := `{"m": [1, -1], "s": [0.5, 2], "a": 0.3, "b": 0.4}`
	writeZip(t, filepath.Join(base, "data", "data", "gdata.json.zip"), "gdata.json", []byte(data))
	for _, model := range []string{"gauss_test", "nomodel"} {
		name := "gdata-" + model
		writeFile(t, filepath.Join(base, "posteriors", name+".json"), []byte(`{"name": "`+name+`", "model_name": "`+model+`",
  "data_name": "gdata", "reference_posterior_name": "`+name+`", "dimensions": {"mu": 2, "sigma": 1}}`))
		writeFile(t, filepath.Join(base, "models", "stan", model+".stan"), []byte("// the test's model\n"))
		rng := rand.New(rand.NewPCG(11, 12))
		var b strings.Builder
		b.WriteString("[")
		for c := 0; c < 10; c++ {
			var sig, m1, m2 []string
			for i := 0; i < 200; i++ {
				sig = append(sig, strconv.FormatFloat(math.Exp(0.3+0.4*rng.NormFloat64()), 'g', -1, 64))
				m1 = append(m1, strconv.FormatFloat(1+0.5*rng.NormFloat64(), 'g', -1, 64))
				m2 = append(m2, strconv.FormatFloat(-1+2*rng.NormFloat64(), 'g', -1, 64))
			}
			if c > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"sigma": [%s], "mu[1]": [%s], "mu[2]": [%s]}`, strings.Join(sig, ","), strings.Join(m1, ","), strings.Join(m2, ","))
		}
		b.WriteString("]")
		writeZip(t, filepath.Join(base, "reference_posteriors", "draws", "draws", name+".json.zip"), name+".json", []byte(b.String()))
		writeFile(t, filepath.Join(base, "reference_posteriors", "draws", "info", name+".info.json"), []byte(`{"name": "`+name+`",
  "inference": {"method": "exact"}, "diagnostics": {"diagnostic_information": {"names": ["mu[1]", "mu[2]", "sigma"]},
  "ndraws": 2000, "nchains": 10, "r_hat": [1, 1, 1.001], "effective_sample_size_bulk": [2000, 1990, 2010]},
  "checks_made": {"exact": true}}`))
	}
	return root
}

// usePDB points the posteriordb datasets at dir for the test's duration.
func usePDB(t *testing.T, dir string) {
	t.Helper()
	SetPosteriorDB(dir)
	t.Cleanup(func() { SetPosteriorDB("") })
}

const pdbExperiment = `id = "pdb-test"
seed = 1
datasets = ["posteriordb.gdata-gauss_test", "posteriordb.gdata-nomodel"]
splits = [1]

[eval]
metrics = ["pdb_mmd2", "pdb_mean_err", "pdb_mean_z", "pdb_sd_ratio_min", "pdb_sd_ratio_max", "ksd2"]
log = true

[methods.hmc]
kind = "hmc"
particles = [200]
settings = { chains = 2, warmup = 300 }

[methods.svgd]
kind = "svgd"
particles = [20]
settings = { iterations = 300, step_size = 0.05 }

[[figures]]
id = "pdb-test"
x = "particles"
y = ["pdb_mmd2", "pdb_sd_ratio_min"]
log_y = true
`

// TestPosteriorDBEndToEnd runs an experiment on a posteriordb posterior of
// the test's own Gaussian model through the harness: the cells of the
// posterior whose model pkg/pdbmodel lacks are skipped with the reason,
// the others write every pdb metric, finite, and HMC's particles, mapped
// through the model's Constrain into the reference's column order, agree
// with the exact reference draws; the summaries carry the reference and
// its floors.
func TestPosteriorDBEndToEnd(t *testing.T) {
	registerGaussModel(t)
	usePDB(t, writePDB(t))
	e, err := harness.Load(testRegistry, "pdb-test.toml", []byte(pdbExperiment), "")
	if err != nil {
		t.Fatal(err)
	}
	cells := harness.Plan([]*harness.Experiment{e})
	results := t.TempDir()
	r := harness.NewRunner(testRegistry, harness.Options{Results: results, Jobs: 2, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	sum, err := r.Run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != 2 || sum.Skipped != 2 || sum.Failed != 0 {
		t.Fatalf("run: %v %v %v", sum, sum.Failures, sum.Skips)
	}
	for _, s := range sum.Skips {
		if !strings.Contains(s, "gdata-nomodel") || !strings.Contains(s, "model not available: pkg/pdbmodel has no model nomodel") {
			t.Errorf("skip %q", s)
		}
	}
	for _, c := range cells {
		if c.Dataset != "posteriordb.gdata-gauss_test" {
			continue
		}
		csvPath, provPath := r.Paths(c)
		b, err := os.ReadFile(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		last := map[string]float64{}
		for _, row := range rows[1:] {
			v, err := strconv.ParseFloat(row[10], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: %s = %q at step %s", c.ID, row[9], row[10], row[6])
			}
			last[row[9]] = v
		}
		for _, m := range []string{PDBMMD2, PDBMeanErr, PDBMeanZ, PDBSDRatioMin, PDBSDRatioMax, KSD2} {
			if _, ok := last[m]; !ok {
				t.Errorf("%s: no %s", c.ID, m)
			}
		}
		p, err := harness.ReadProvenance(provPath)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Reference RefInfo `json:"reference"`
			PDB       struct {
				Posterior string `json:"posterior"`
			} `json:"posteriordb"`
		}
		if c.Method.Kind != KindHMC {
			js, _ := json.Marshal(p.Summary)
			if err := json.Unmarshal(js, &s); err != nil {
				t.Fatal(err)
			}
			ref := s.Reference
			if ref.Kind != "posteriordb" || ref.Draws != 2000 || ref.Chains != 10 || !(ref.Bandwidth > 0) || s.PDB.Posterior != "gdata-gauss_test" {
				t.Errorf("%s: summary %s", c.ID, js)
			}
			for _, m := range []string{PDBMMD2, PDBMeanErr, PDBMeanZ, PDBSDRatioMin, PDBSDRatioMax} {
				if !(ref.Floors[m] > 0) {
					t.Errorf("%s: floor of %s %v", c.ID, m, ref.Floors[m])
				}
			}
			continue
		}
		// HMC's 200 draws (2 chains) of the exact posterior: a mean error
		// of an effective sample of at least 50 exceeds 0.6 sd with
		// probability < 10⁻⁴ per parameter, sd ratios leave [0.7, 1.4]
		// rarely; a wrong column or a missing exp gives mean errors above
		// 1 (sigma's mean 1.46 against mu[1]'s 1, sd 0.6 against 0.5 and
		// 2; log sigma's 0.3).
		if !(last[PDBMeanErr] < 0.6) || !(last[PDBSDRatioMin] > 0.7) || !(last[PDBSDRatioMax] < 1.4) || !(last[PDBMMD2] < 0.05) {
			t.Errorf("%s: final scores %v", c.ID, last)
		}
	}

	// The report's figures of the pdb metrics, with the floors the SVGD
	// cell's summary records.
	res, err := report.Load(results)
	if err != nil {
		t.Fatal(err)
	}
	res.Declare(e)
	res.DescribeKinds(testRegistry.Kinds())
	res.Checks = testRegistry.Checks()
	if v, n := report.ReferenceFloor(res.Experiment("pdb-test"), "posteriordb.gdata-gauss_test", PDBMMD2); n != 1 || !(v > 0) {
		t.Errorf("floor of %s: %v over %d splits", PDBMMD2, v, n)
	}
	figs := t.TempDir()
	files, err := report.Plot(res, figs)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{PDBMMD2, PDBSDRatioMin} {
		if !slices.Contains(files, filepath.Join(figs, "pdb-test-"+m+".png")) {
			t.Errorf("no figure of %s among %v", m, files)
		}
	}
}

// TestPosteriorDBMissing checks the reasons a posteriordb cell is skipped,
// which enter its key: no folder, no such posterior, a missing file.
func TestPosteriorDBMissing(t *testing.T) {
	registerGaussModel(t)
	dir := writePDB(t)
	ds, ok := pdbDataset(posteriorModels(harness.NewRegistry()), "gdata-gauss_test")
	if !ok {
		t.Fatal("dataset refused")
	}
	usePDB(t, dir)
	sums, err := ds.Checksums(1, nil)
	if err != nil || len(sums) != 5 || sums["posteriordb/gdata-gauss_test/reference_draws.json.zip"] == "" {
		t.Fatalf("checksums %v, %v", sums, err)
	}
	t.Setenv(PosteriorDBEnv, filepath.Join(dir, "absent"))
	SetPosteriorDB("")
	for _, tc := range []struct {
		root, name, want string
	}{
		{filepath.Join(dir, "absent"), "gdata-gauss_test", "data missing: the posteriordb folder is absent (--posteriordb or $MMDFW_POSTERIORDB)"},
		{dir, "gdata-other", "data missing: the posteriordb folder has no posterior gdata-other"},
		{dir, "gdata-nomodel", "data missing: model not available: pkg/pdbmodel has no model nomodel (posterior gdata-nomodel)"},
	} {
		SetPosteriorDB(tc.root)
		d, _ := pdbDataset(posteriorModels(harness.NewRegistry()), tc.name)
		_, err := d.Checksums(1, nil)
		if err == nil || err.Error() != tc.want || strings.Contains(err.Error(), dir) {
			t.Errorf("%s in %s: %v, want %q (without the path)", tc.name, tc.root, err, tc.want)
		}
	}
	if err := os.Remove(filepath.Join(dir, "posterior_database", "models", "stan", "gauss_test.stan")); err != nil {
		t.Fatal(err)
	}
	SetPosteriorDB(dir)
	if _, err := ds.Checksums(1, nil); err == nil || !strings.HasPrefix(err.Error(), "data missing: posterior gdata-gauss_test lacks a file") {
		t.Errorf("missing model file: %v", err)
	}
	for _, bad := range []string{"", "a/b", ".."} {
		if _, ok := pdbDataset(posteriorModels(harness.NewRegistry()), bad); ok {
			t.Errorf("dataset %q accepted", bad)
		}
	}
	// A pdb metric on a dataset that is not posteriordb's.
	p, err := harness.Load(testRegistry, "x.toml", []byte(strings.NewReplacer(
		`datasets = ["posteriordb.gdata-gauss_test", "posteriordb.gdata-nomodel"]`, `datasets = ["gauss2d"]`).Replace(pdbExperiment)), "")
	if err != nil {
		t.Fatal(err)
	}
	r := harness.NewRunner(testRegistry, harness.Options{Results: t.TempDir(), Jobs: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	sum, err := r.Run(context.Background(), harness.Plan([]*harness.Experiment{p})[1:])
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || !strings.Contains(strings.Join(sum.Failures, " "), "pdb_mmd2 needs a posteriordb dataset (posteriordb.<posterior>), not gauss2d") {
		t.Errorf("pdb metric on gauss2d: %v", sum.Failures)
	}
}
