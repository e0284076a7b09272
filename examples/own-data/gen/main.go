// Command gen writes the example dataset of examples/own-data: own.csv, a
// table of 600 rows with four features, a class label ("yes"/"no", drawn
// from a logistic model) and a numeric response (a smooth function of the
// features plus noise), and the PBP-layout split files splits/index_train_s.txt,
// splits/index_test_s.txt for s = 0, 1, 2 (90/10 splits). It is deterministic:
//
//	go run ./examples/own-data/gen            # from the repository root
//
// rewrites the same bytes; a test checks that the committed files are
// what it writes.
package main

import (
	"bytes"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// Rows is the number of data rows of own.csv.
const Rows = 600

// Splits is the number of split-file pairs.
const Splits = 3

func f(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// Files returns the contents of every file the generator writes, keyed by
// their path relative to examples/own-data.
func Files() map[string][]byte {
	rng := rand.New(rand.NewPCG(2019, 0x6f776e))
	var b bytes.Buffer
	b.WriteString("id,x1,x2,x3,x4,label,y\n")
	w := []float64{1.5, -2, 0.75, 0}
	for i := 0; i < Rows; i++ {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), 2 * rng.Float64(), rng.NormFloat64()}
		u := 0.3 + w[0]*x[0] + w[1]*x[1] + w[2]*x[2] + w[3]*x[3]
		label := "no"
		if rng.Float64() < 1/(1+math.Exp(-u)) {
			label = "yes"
		}
		y := 10 + 2*math.Sin(x[0]) + x[1]*x[2] - 0.5*x[3]*x[3] + 0.3*rng.NormFloat64()
		fmt.Fprintf(&b, "r%03d,%s,%s,%s,%s,%s,%s\n", i, f(x[0]), f(x[1]), f(x[2]), f(x[3]), label, f(y))
	}
	out := map[string][]byte{"own.csv": b.Bytes()}
	for s := 0; s < Splits; s++ {
		perm := rng.Perm(Rows)
		nTest := Rows / 10
		test, train := append([]int(nil), perm[:nTest]...), append([]int(nil), perm[nTest:]...)
		sort.Ints(test)
		sort.Ints(train)
		for name, rows := range map[string][]int{"train": train, "test": test} {
			var t bytes.Buffer
			for _, r := range rows {
				fmt.Fprintln(&t, r)
			}
			out[fmt.Sprintf("splits/index_%s_%d.txt", name, s)] = t.Bytes()
		}
	}
	return out
}

func main() {
	dir := filepath.Join("examples", "own-data")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for name, b := range Files() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
