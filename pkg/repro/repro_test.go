package repro_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/repro"
	"github.com/mmdfw/mmdfw/pkg/sampler"
)

func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const builtinsTOML = `id = "builtins"
seed = 1
datasets = ["gauss2d"]
splits = [0]
eval = { metrics = ["mmd2_exact", "ksd2"] }
[methods.a]
kind = "mmdfw"
[methods.b]
kind = "svgd"
[methods.c]
kind = "sgld"
[methods.d]
kind = "sp"
[methods.e]
kind = "hmc"
`

// NewRegistry knows the kinds, datasets and metrics of the repro command;
// a kind registered on one registry is unknown to another.
func TestRegistry(t *testing.T) {
	dir := t.TempDir()
	cells, err := repro.Load(repro.NewRegistry(), []string{writeFile(t, dir, "b.toml", builtinsTOML)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 5 {
		t.Errorf("%d cells, want 5", len(cells))
	}

	own := `id = "own"
datasets = ["gauss2d"]
splits = [0]
eval = { metrics = ["mmd2_exact"] }
[methods.p]
kind = "prior-draws"
particles = [3]
`
	f := writeFile(t, dir, "own.toml", own)
	reg := repro.NewRegistry()
	repro.RegisterSampler(reg, "prior-draws", "1", func(in repro.Input[PriorDraws]) sampler.Sampler { return PriorDraws{N: in.N} })
	if _, err := repro.Load(reg, []string{f}, ""); err != nil {
		t.Fatal(err)
	}
	_, err = repro.Load(repro.NewRegistry(), []string{f}, "")
	if err == nil || !strings.Contains(err.Error(), `"prior-draws"`) || !strings.Contains(err.Error(), "own.toml") {
		t.Errorf("a kind of another registry: error %v", err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "duplicate method prior-draws") {
			t.Errorf("duplicate registration: panic %v", r)
		}
	}()
	repro.RegisterSampler(reg, "prior-draws", "1", func(in repro.Input[PriorDraws]) sampler.Sampler { return PriorDraws{} })
}

// MissingData names the datasets of pkg/data a folder lacks, and only
// those.
func TestMissingData(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "m.toml", `id = "m"
datasets = ["gauss2d", "yacht", "covertype"]
splits = [0]
eval = { metrics = ["ksd2"] }
[methods.s]
kind = "svgd"
`)
	cells, err := repro.Load(repro.NewRegistry(), []string{f}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := repro.MissingData(filepath.Join(dir, "none"), cells); !slices.Equal(got, []string{"covertype", "yacht"}) {
		t.Errorf("MissingData = %v, want [covertype yacht]", got)
	}
}

// Plot and WriteReport read results and never compute: with none they say
// so; after a run they write the figures and the report.
func TestPlotAndReport(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "g.toml", `id = "g"
seed = 2
datasets = ["gauss2d"]
splits = [0, 1]
eval = { metrics = ["mmd2_exact"] }
[methods.svgd]
kind = "svgd"
particles = [8]
settings = { iterations = 40, step_size = 0.1 }
`)
	reg := repro.NewRegistry()
	results, figures := filepath.Join(dir, "results"), filepath.Join(dir, "figures")
	if _, err := repro.Plot(reg, []string{f}, "", results, figures); err == nil {
		t.Error("Plot without results: no error")
	}
	cells, err := repro.Load(reg, []string{f}, "")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := repro.NewRunner(reg, repro.Options{Results: results, Jobs: 1}).Run(context.Background(), cells)
	if err != nil || sum.Err() != nil {
		t.Fatal(err, sum.Err())
	}
	out := filepath.Join(dir, "REPORT.md")
	if err := repro.WriteReport(reg, []string{f}, "", results, figures, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "figures/g-mmd2_exact") {
		t.Errorf("the report links no figure of g:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(figures, "g-mmd2_exact.png")); err != nil {
		t.Error(err)
	}
}

// A kind of RegisterSampler writes the dataset's label into its provenance
// summary, as the built-in kinds do.
func TestSamplerSummary(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "p.toml", `id = "p"
seed = 3
datasets = ["gauss2d"]
splits = [0]
eval = { metrics = ["mmd2_exact"] }
[methods.draws]
kind = "prior-draws"
particles = [5]
`)
	reg := repro.NewRegistry()
	repro.RegisterSampler(reg, "prior-draws", "1", func(in repro.Input[PriorDraws]) sampler.Sampler { return PriorDraws{N: in.N} })
	cells, err := repro.Load(reg, []string{f}, "")
	if err != nil {
		t.Fatal(err)
	}
	r := repro.NewRunner(reg, repro.Options{Results: filepath.Join(dir, "results"), Jobs: 1})
	if sum, err := r.Run(context.Background(), cells); err != nil || sum.Err() != nil {
		t.Fatal(err, sum.Err())
	}
	_, prov := r.Paths(cells[0])
	b, err := os.ReadFile(prov)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary map[string]any `json:"summary"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if l, _ := doc.Summary["dataset_label"].(string); l == "" {
		t.Errorf("provenance summary %v has no dataset_label", doc.Summary)
	}
}

// A program in another module compiles against the package: the example
// program examples/own-method, copied into a module of its own that
// requires this one.
func TestOutsideModule(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(root, "examples", "own-method")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); (strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go")) || strings.HasSuffix(n, ".toml") {
			b, err := os.ReadFile(filepath.Join(src, n))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, n, string(b))
		}
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// The same requirements (so that the module cache serves them), plus
	// this module from the checkout.
	mod := strings.Replace(string(gomod), "module github.com/mmdfw/mmdfw", "module example.com/mine", 1) +
		"\nrequire github.com/mmdfw/mmdfw v0.0.0\n\nreplace github.com/mmdfw/mmdfw => " + filepath.ToSlash(root) + "\n"
	writeFile(t, dir, "go.mod", mod)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "go.sum", string(sum))
	// go test puts the bin folder of the go command that runs it first on
	// PATH: the build uses the same toolchain.
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	cmd := exec.Command(goCmd, "build", "-o", filepath.Join(dir, "mine"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in a module of its own: %v\n%s", err, out)
	}
}
