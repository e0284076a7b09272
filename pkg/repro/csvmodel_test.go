package repro

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/target"
)

const ownCSVExp = `id = "own-csv"
seed = 1
datasets = ["mine"]
splits = [0]

[data.mine]
file = "own.csv"
target = "y"
model = "linear"
split_count = 2
train_fraction = 0.8

[eval]
metrics = ["ksd2"]

[methods.svgd]
kind = "svgd"
particles = [5]
settings = { iterations = 20 }
`

// linear is a Bayesian linear regression with unit noise and a standard
// normal prior, log p(θ) = −|θ|²/2 − Σᵢ (yᵢ − xᵢᵀθ)²/2, whose prior draws
// start the methods.
type linear struct{ target.Func }

func (linear) SamplePrior(rng *rand.Rand, dst []float64) {
	for j := range dst {
		dst[j] = rng.NormFloat64()
	}
}

func linearProblem(_ context.Context, in CSVInput) (*Problem, error) {
	n, d := in.XTrain.Dims()
	X, y := in.XTrain, in.YTrain
	f := target.Func{D: d, F: func(th, grad []float64) float64 {
		lp := 0.0
		for j, v := range th {
			lp -= v * v / 2
			grad[j] = -v
		}
		for i := 0; i < n; i++ {
			r := y[i] - mat.Dot(X.RowView(i), mat.NewVecDense(d, th))
			lp -= r * r / 2
			for j := range th {
				grad[j] += r * X.At(i, j)
			}
		}
		return lp
	}}
	return &Problem{Target: linear{f}}, nil
}

// A CSV model registered on the registry runs the cells of a [data.NAME]
// table that names it, through Main; a registry without it refuses the
// file at the model key's line.
func TestCSVModel(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("x1,x2,y\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&csv, "%d,%d,%g\n", i%7, i%5, float64(i%7)-0.5*float64(i%5)+0.1*float64(i%3))
	}
	if err := os.WriteFile(filepath.Join(dir, "own.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "own.toml")
	if err := os.WriteFile(file, []byte(ownCSVExp), 0o644); err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(dir, "results")
	main := func(reg *Registry, args ...string) (int, string) {
		var out, msg bytes.Buffer
		code := Main(context.Background(), reg, args, &out, &msg)
		return code, out.String() + msg.String()
	}
	if code, msg := main(NewRegistry(), "list", file, "--results", results); code != 1 || !strings.Contains(msg, `own.toml:9: key data.mine.model: unknown model "linear" ("logistic", "bnn")`) {
		t.Errorf("without the model: exit %d\n%s", code, msg)
	}
	reg := NewRegistry()
	RegisterCSVModel(reg, "linear", CSVModel{Version: "1", Build: linearProblem})
	if code, msg := main(reg, "run", file, "--results", results, "-j", "1"); code != 0 || !strings.Contains(msg, "1 cells: 1 done") {
		t.Fatalf("run: exit %d\n%s", code, msg)
	}
	if code, msg := main(reg, "status", file, "--results", results); code != 0 || !strings.Contains(msg, "1 cells: 1 done") {
		t.Errorf("status: exit %d\n%s", code, msg)
	}
	// Another version of the model is another key: the cell is stale.
	reg2 := NewRegistry()
	RegisterCSVModel(reg2, "linear", CSVModel{Version: "2", Build: linearProblem})
	if code, msg := main(reg2, "status", file, "--results", results); code != 0 || !strings.Contains(msg, "1 pending (1 stale)") {
		t.Errorf("status under version 2: exit %d\n%s", code, msg)
	}
	reg3 := NewRegistry()
	RegisterCSVModel(reg3, "linear", CSVModel{Version: "1", Classes: true, Build: linearProblem})
	if code, msg := main(reg3, "list", file, "--results", results); code != 1 || !strings.Contains(msg, "own.toml:6: key data.mine.positive: model \"linear\" takes two classes") {
		t.Errorf("a classes model without positive: exit %d\n%s", code, msg)
	}
}
