package repro

import (
	"bytes"
	"context"
	"encoding/csv"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/experiment"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// The test dataset of the reference command: N((1, −2), diag(1, 4)) as a
// plain target, which no exact metric covers, so an mmd2 cell needs an HMC
// reference.
func registerNormal2(r *harness.Registry) {
	r.RegisterDataset("test-normal2", harness.Dataset{
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			f := func(x, g []float64) float64 {
				g[0] = -(x[0] - 1)
				g[1] = -(x[1] + 2) / 4
				return -0.5*(x[0]-1)*(x[0]-1) - (x[1]+2)*(x[1]+2)/8
			}
			return &harness.Problem{Target: target.Func{D: 2, F: f}, Model: &experiment.Info{Name: "test-normal2", Label: "N((1, −2), diag(1, 4))"}}, nil
		},
		Checksums: func(int, *harness.Env) (map[string]string, error) { return map[string]string{"none": "0"}, nil },
	})
}

const tinyReference = `
id = "refsum"
seed = 3
datasets = ["test-normal2"]
splits = [1, 2]
[eval]
metrics = ["mmd2"]
[reference]
kind = "hmc"
particles = 2000
settings = { chains = 4, warmup = 300, init = "prior" }
[methods.short-hmc]
kind = "hmc"
particles = [20]
settings = { chains = 1, warmup = 30, init = "prior" }
`

// TestReferenceCommand runs a tiny experiment, then summarises its two
// references from the cache: the table and the CSV carry every chain and
// parameter, the posterior means and sds are those of the target within
// Monte Carlo error, R̂ is near 1 and the ESS positive; before the run the
// references are reported as not cached.
func TestReferenceCommand(t *testing.T) {
	t.Setenv(dataEnv, "")
	tmp := t.TempDir()
	file := filepath.Join(tmp, "refsum.toml")
	results := filepath.Join(tmp, "results")
	if err := os.WriteFile(file, []byte(tinyReference), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := testRegistry()
	cells, err := loadCells(reg, []string{file}, "")
	if err != nil {
		t.Fatal(err)
	}
	r := harness.NewRunner(reg, harness.Options{Results: results, Jobs: 1, Log: slog.New(slog.DiscardHandler)})

	before, err := referenceSummaries(r, cells)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 2 || !strings.HasPrefix(before[0].missing, "not cached") {
		t.Fatalf("before the run: %d summaries, first %+v", len(before), before[0])
	}

	if sum, err := r.Run(context.Background(), cells); err != nil || sum.Failed > 0 {
		t.Fatalf("run: %v %v", sum, err)
	}
	sums, err := referenceSummaries(r, cells)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := printReferences(&out, sums); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"reference/hmc/test-normal2/s1", "reference/hmc/test-normal2/s2", "ess_tail", "adapt_accept", "x[1]"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	wantMean, wantSD := []float64{1, -2}, []float64{1, 2}
	for _, s := range sums {
		if s.missing != "" || len(s.chains) != 4 || len(s.params) != 2 || s.draws != 2000 {
			t.Fatalf("%s: %+v", s.id, s)
		}
		for c, ch := range s.chains {
			if ch.Warmup != 300 || ch.Draws != 500 || !(ch.AcceptRate > 0.5) || !(ch.StepSize > 0) {
				t.Errorf("%s chain %d: %+v", s.id, c, ch)
			}
		}
		for j, p := range s.params {
			// 2000 draws of ESS several hundred: the mean within 5 MCSE.
			if d := p.mean - wantMean[j]; d*d > 25*p.mcse*p.mcse || !(p.mcse > 0) {
				t.Errorf("%s %s: mean %v ± %v, want %v", s.id, p.name, p.mean, p.mcse, wantMean[j])
			}
			if p.sd < 0.85*wantSD[j] || p.sd > 1.15*wantSD[j] {
				t.Errorf("%s %s: sd %v, want %v", s.id, p.name, p.sd, wantSD[j])
			}
			if !(p.q5 < p.q50 && p.q50 < p.q95) || !(p.rhat > 0.99 && p.rhat < 1.02) || !(p.bulk > 200) || !(p.tail > 200) {
				t.Errorf("%s %s: %+v", s.id, p.name, p)
			}
		}
	}

	// The command itself, with --csv.
	csvPath := filepath.Join(tmp, "ref.csv")
	if err := referenceCmd(testCLI(), []string{file, "--results", results, "--csv", csvPath}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+2*(4+2) || strings.Join(rows[0], ",") != strings.Join(referenceCSVHeader, ",") {
		t.Fatalf("csv: %d rows, header %v", len(rows), rows[0])
	}
	for _, row := range rows[1:] {
		if row[1] == "param" {
			if _, err := strconv.ParseFloat(row[12], 64); err != nil {
				t.Errorf("csv row %v: mean %v", row, err)
			}
		}
	}
}
