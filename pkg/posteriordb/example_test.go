package posteriordb_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/posteriordb"
)

// writeZip writes a zip archive of one member.
func writeZip(path, member, content string) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create(member)
	w.Write([]byte(content))
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// A posteriordb folder in posteriordb's own layout (a clone of its
// repository, here a one-posterior stand-in) is opened by its path and read
// without checksums; the staged layout is opened the same way and verified.
func ExampleOpen() {
	root, err := os.MkdirTemp("", "posteriordb")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	base := filepath.Join(root, "posterior_database")
	for _, d := range []string{"posteriors", "models/stan", "data/data", "reference_posteriors/draws/draws", "reference_posteriors/draws/info"} {
		os.MkdirAll(filepath.Join(base, d), 0o755)
	}
	os.WriteFile(filepath.Join(base, "posteriors", "coin-beta.json"), []byte(`{
  "name": "coin-beta", "model_name": "beta", "data_name": "coin",
  "reference_posterior_name": "coin-beta", "dimensions": {"p": 1, "odds": 1}
}`), 0o644)
	os.WriteFile(filepath.Join(base, "models", "stan", "beta.stan"), []byte("parameters { real<lower=0, upper=1> p; }\n"), 0o644)
	writeZip(filepath.Join(base, "data", "data", "coin.json.zip"), "coin.json", `{"n": 10, "k": 7}`)
	writeZip(filepath.Join(base, "reference_posteriors", "draws", "draws", "coin-beta.json.zip"), "coin-beta.json",
		`[{"p": [0.6, 0.7, 0.8], "odds": [1.5, 2.33, 4]}, {"p": [0.55, 0.65, 0.75], "odds": [1.22, 1.86, 3]}]`)
	os.WriteFile(filepath.Join(base, "reference_posteriors", "draws", "info", "coin-beta.info.json"),
		[]byte(`{"name": "coin-beta", "inference": {"method": "stan_sampling"}, "diagnostics": {"nchains": 2, "ndraws": 6}}`), 0o644)

	db, err := posteriordb.Open(root)
	if err != nil {
		log.Fatal(err)
	}
	names, _ := db.Names()
	fmt.Println(db.Layout, names)
	p, err := db.Load("coin-beta")
	if err != nil {
		log.Fatal(err)
	}
	r := p.Reference
	fmt.Println(p.ModelName, p.DataName, p.Dimensions, string(p.Data["k"]))
	fmt.Println(r.Names, r.Chains(), "chains, bounds", r.Bounds, "draw 2 of chain 2:", mat.Row(nil, 1, r.Chain(1)))
	// Output:
	// posteriordb [coin-beta]
	// beta coin [{p 1} {odds 1}] 7
	// [p odds] 2 chains, bounds [0 3 6] draw 2 of chain 2: [0.65 1.86]
}

// A Comparison summarises reference draws once; every set of constrained
// draws is then scored against it: per-parameter errors of its mean and
// sd, and the MMD² on standardised draws, beside the floor that the
// reference's two halves of chains set.
func ExampleNewComparison() {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(n int, shift float64) *mat.Dense {
		X := mat.NewDense(n, 2, nil)
		for i := 0; i < n; i++ {
			z := rng.NormFloat64()
			X.Set(i, 0, 1+z+shift)                     // N(1 + shift, 1)
			X.Set(i, 1, 2+0.5*z+0.5*rng.NormFloat64()) // correlated with it
		}
		return X
	}
	var chains []*mat.Dense
	for c := 0; c < 4; c++ {
		chains = append(chains, draw(500, 0))
	}
	ref, err := posteriordb.NewReference([]string{"a", "b"}, chains)
	if err != nil {
		log.Fatal(err)
	}
	cmp, err := posteriordb.NewComparison(ref, posteriordb.CompareSettings{})
	if err != nil {
		log.Fatal(err)
	}
	exact := cmp.Score(draw(1000, 0), nil, posteriordb.Own{ESS: []float64{1000, 1000}})
	shifted := cmp.Score(draw(1000, 0.5), nil, posteriordb.Own{ESS: []float64{1000, 1000}})
	fmt.Printf("exact:   max |Δ mean|/sd %.2f, z %.1f, sd ratios %.2f–%.2f, MMD² below 3× floor: %v\n",
		exact.MaxMeanErr, exact.MaxMeanZ, exact.MinSDRatio, exact.MaxSDRatio, exact.MMD2 < 3*cmp.Floor.MMD2)
	fmt.Printf("shifted: max |Δ mean|/sd %.2f, z %.1f, MMD² above 10× floor: %v\n",
		shifted.MaxMeanErr, shifted.MaxMeanZ, shifted.MMD2 > 10*cmp.Floor.MMD2)
	// Output:
	// exact:   max |Δ mean|/sd 0.05, z 1.1, sd ratios 1.03–1.05, MMD² below 3× floor: true
	// shifted: max |Δ mean|/sd 0.42, z 11.0, MMD² above 10× floor: true
}
