// Command gen writes experiments/data/abs1d/abs1d.csv, the synthetic
// one-dimensional regression set of experiments/bnn-rate.toml: 100 rows of
// x ~ U[−2, 2] and y = |x| + ε, ε ~ N(0, 0.2²), from a fixed seed. Two ReLU
// units represent |x| = relu(x) + relu(−x) exactly, so a network of a few
// units is well specified and its posterior small enough for HMC chains to
// agree on the network's predictions. It is deterministic:
//
//	go run ./experiments/data/abs1d/gen            # from the repository root
//
// rewrites the same bytes; a test checks that the committed file is what it
// writes.
package main

import (
	"bytes"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Rows is the number of data rows of abs1d.csv.
const Rows = 100

// Noise is the standard deviation of the response's noise.
const Noise = 0.2

func f(v float64) string { return strconv.FormatFloat(v, 'f', 5, 64) }

// File returns the contents of abs1d.csv.
func File() []byte {
	rng := rand.New(rand.NewPCG(2019, 0x616273))
	var b bytes.Buffer
	b.WriteString("x,y\n")
	for i := 0; i < Rows; i++ {
		x := -2 + 4*rng.Float64()
		y := math.Abs(x) + Noise*rng.NormFloat64()
		fmt.Fprintf(&b, "%s,%s\n", f(x), f(y))
	}
	return b.Bytes()
}

func main() {
	p := filepath.Join("experiments", "data", "abs1d", "abs1d.csv")
	if len(os.Args) > 1 {
		p = os.Args[1]
	}
	if err := os.WriteFile(p, File(), 0o644); err != nil {
		log.Fatal(err)
	}
}
