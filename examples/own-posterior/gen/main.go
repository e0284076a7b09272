// Command gen writes the posteriordb folder of examples/own-posterior in
// posteriordb's staged layout: one posterior, normal_mean_var-normal_invgamma,
// with its posterior.json, the model's Stan code (for reference: the
// program's own Go model is what runs), its data (20 draws of N(1.5, 0.8²),
// zipped) and reference draws sampled exactly from the conjugate posterior
// (10 chains of 100 independent draws, zipped), with their information
// file. The output is the same bytes on every run.
//
//	go run ./examples/own-posterior/gen [-out examples/own-posterior/posteriordb]
package main

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Name is the posterior's name, "<data name>-<model name>".
const Name = "normal_mean_var-normal_invgamma"

// The prior of model.stan: σ² ~ InvGamma(a0, b0), μ | σ² ~ N(m0, σ²/k0).
const m0, k0, a0, b0 = 0.0, 1.0, 3.0, 2.0

const posteriorJSON = `{
  "name": "normal_mean_var-normal_invgamma",
  "keywords": ["example", "conjugate"],
  "model_name": "normal_invgamma",
  "reference_posterior_name": "normal_mean_var-normal_invgamma",
  "data_name": "normal_mean_var",
  "dimensions": {
    "mu": 1,
    "sigma2": 1
  }
}
`

const modelStan = `// normal_invgamma: a normal sample with unknown mean and variance under
// the conjugate normal-inverse-gamma prior. Its posterior is again
// normal-inverse-gamma, so its reference draws are exact.
data {
  int<lower=1> N;
  vector[N] y;
}
parameters {
  real mu;
  real<lower=0> sigma2;
}
model {
  sigma2 ~ inv_gamma(3, 2);
  mu ~ normal(0, sqrt(sigma2 / 1));
  y ~ normal(mu, sqrt(sigma2));
}
`

const (
	chains = 10
	draws  = 100
)

func main() {
	out := flag.String("out", filepath.Join("examples", "own-posterior", "posteriordb"), "posteriordb folder to write")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// write writes the posterior's folder under root.
func write(root string) error {
	dir := filepath.Join(root, Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	src := rand.NewPCG(40, 1)
	y := make([]float64, 20)
	noise := distuv.Normal{Mu: 1.5, Sigma: 0.8, Src: src}
	for i := range y {
		y[i] = round(noise.Rand())
	}
	var data strings.Builder
	fmt.Fprintf(&data, "{\n  \"N\": %d,\n  \"y\": [%s]\n}\n", len(y), join(y))
	dataZip, err := zipOne("normal_mean_var.json", data.String())
	if err != nil {
		return err
	}

	// The exact posterior: σ² ~ InvGamma(a, b), μ | σ² ~ N(m, σ²/k).
	n := float64(len(y))
	var mean, ss float64
	for _, v := range y {
		mean += v
	}
	mean /= n
	for _, v := range y {
		ss += (v - mean) * (v - mean)
	}
	k := k0 + n
	m := (k0*m0 + n*mean) / k
	a := a0 + n/2
	b := b0 + ss/2 + k0*n*(mean-m0)*(mean-m0)/(2*k)
	g := distuv.Gamma{Alpha: a, Beta: b, Src: src} // 1/σ²
	z := distuv.Normal{Mu: 0, Sigma: 1, Src: src}
	var ref strings.Builder
	ref.WriteString("[\n")
	for c := 0; c < chains; c++ {
		mus, vs := make([]float64, draws), make([]float64, draws)
		for i := range mus {
			vs[i] = 1 / g.Rand()
			mus[i] = m + math.Sqrt(vs[i]/k)*z.Rand()
		}
		sep := ","
		if c == chains-1 {
			sep = ""
		}
		fmt.Fprintf(&ref, "  {\"mu\": [%s], \"sigma2\": [%s]}%s\n", join(mus), join(vs), sep)
	}
	ref.WriteString("]\n")
	refZip, err := zipOne(Name+".json", ref.String())
	if err != nil {
		return err
	}
	info := fmt.Sprintf(`{
  "name": %q,
  "inference": {"method": "exact", "method_arguments": {"chains": %d, "draws": %d, "sampler": "conjugate normal-inverse-gamma posterior, gen/main.go"}},
  "diagnostics": {
    "diagnostic_information": {"names": ["mu", "sigma2"]},
    "ndraws": %d, "nchains": %d
  },
  "checks_made": {}
}
`, Name, chains, draws, chains*draws, chains)
	for f, b := range map[string][]byte{
		"posterior.json":           []byte(posteriorJSON),
		"model.stan":               []byte(modelStan),
		"data.json.zip":            dataZip,
		"reference_draws.json.zip": refZip,
		"reference_info.json":      []byte(info),
	} {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// round keeps 6 significant digits, so that the data file is short.
func round(v float64) float64 {
	p := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

func join(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.6g", x)
	}
	return strings.Join(s, ", ")
}

// zipOne returns a zip archive of one member, without timestamps.
func zipOne(name, content string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
	if err != nil {
		return nil, err
	}
	if _, err := w.Write([]byte(content)); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
