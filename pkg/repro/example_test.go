package repro_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/repro"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/target"
)

// PriorDraws is a method of one's own: N prior draws with equal weights,
// reported as one snapshot.
type PriorDraws struct {
	// N is the number of draws (set from the cell's particle count).
	N int `toml:"-"`
}

// Run draws the particles; it has no use for a start.
func (p PriorDraws) Run(ctx context.Context, t target.Target, _ particle.Start, src rand.Source, rec particle.Recorder) (particle.Set, error) {
	ps, ok := t.(target.PriorSampler)
	if !ok {
		return particle.Set{}, fmt.Errorf("prior-draws: the target has no prior")
	}
	rng := rand.New(src)
	X := mat.NewDense(max(p.N, 1), t.Dim(), nil)
	for i := range max(p.N, 1) {
		ps.SamplePrior(rng, X.RawRowView(i))
	}
	set := particle.Set{X: X, W: particle.Equal(max(p.N, 1))}
	var sw particle.Stopwatch
	_, err := particle.Report(rec, &sw, particle.Snapshot{Step: 1, X: set.X, W: set.W})
	return set, err
}

// A method kind of one's own runs beside a built-in one on a built-in
// target, and its results are drawn.
func Example() {
	dir, err := os.MkdirTemp("", "repro-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "mine.toml")
	err = os.WriteFile(file, []byte(`id = "mine"
seed = 1
datasets = ["gauss2d"]
splits = [0]
eval = { metrics = ["mmd2_exact"] }

[methods.prior-draws]
kind = "prior-draws"
particles = [50]

[methods.svgd]
kind = "svgd"
particles = [10]
`), 0o644)
	if err != nil {
		log.Fatal(err)
	}

	reg := repro.NewRegistry() // the built-in kinds, datasets and metrics
	repro.RegisterSampler(reg, "prior-draws", "1", func(in repro.Input[PriorDraws]) sampler.Sampler {
		s := in.Settings
		s.N = in.N
		return s
	})
	cells, err := repro.Load(reg, []string{file}, "")
	if err != nil {
		log.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	sum, err := repro.NewRunner(reg, repro.Options{Results: results, Jobs: 1}).Run(context.Background(), cells)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum)
	figs, err := repro.Plot(reg, []string{file}, "", results, filepath.Join(dir, "figures"))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range figs {
		fmt.Println(filepath.Base(f))
	}
	// Output:
	// 2 cells: 2 done (0 cached), 0 failed, 0 skipped, 0 interrupted
	// mine-mmd2_exact.png
	// mine-mmd2_exact.svg
	// mine-mmd2_exact.pdf
}

// labelled is the Model of a dataset of one's own: what every cell on it
// records of the dataset.
type labelled string

// Describe gives the label the figures and the report print.
func (l labelled) Describe() map[string]any { return map[string]any{"dataset_label": string(l)} }

// A dataset of one's own describes itself through its problem's Model;
// ProblemSummary is what a method registered with RegisterMethod may
// return as the start of its summary.
func ExampleProblemSummary() {
	p := &repro.Problem{Target: target.Func{D: 1, F: func(x, g []float64) float64 { g[0] = -x[0]; return -x[0] * x[0] / 2 }}, Model: labelled("my data")}
	fmt.Println(repro.ProblemSummary(p))
	fmt.Println(repro.ProblemSummary(&repro.Problem{Target: p.Target}))
	// Output:
	// map[dataset_label:my data]
	// map[]
}
