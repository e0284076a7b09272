package posteriordb

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zipOf returns a zip archive holding the members name → content in the
// order given (pairs).
func zipOf(t testing.TB, pairs ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(pairs); i += 2 {
		w, err := zw.Create(pairs[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(pairs[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// drawsJSON writes chains of draws: names in order, chain c's draw i of
// parameter j is value(c, i, j).
func drawsJSON(names []string, chains, draws int, value func(c, i, j int) float64) string {
	var b strings.Builder
	b.WriteString("[\n")
	for c := 0; c < chains; c++ {
		if c > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  {")
		for j, n := range names {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: [", n)
			for i := 0; i < draws; i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%v", value(c, i, j))
			}
			b.WriteString("]")
		}
		b.WriteString("}")
	}
	b.WriteString("\n]\n")
	return b.String()
}

// goodFiles returns a valid staged posterior "toy_data-toy_model":
// theta (2) and sigma, 2 chains of 6 draws.
func goodFiles(t testing.TB) map[string][]byte {
	names := []string{"theta[1]", "theta[2]", "sigma"}
	draws := drawsJSON(names, 2, 6, func(c, i, j int) float64 { return float64(j) + 0.1*float64(i) + 0.05*float64(c) + 0.01*float64(i*i%5) })
	return map[string][]byte{
		FilePosterior: []byte(`{
  "name": "toy_data-toy_model",
  "keywords": ["test"],
  "model_name": "toy_model",
  "reference_posterior_name": "toy_data-toy_model",
  "data_name": "toy_data",
  "dimensions": {
    "theta": 2,
    "sigma": 1
  }
}
`),
		FileModel: []byte("parameters { vector[2] theta; real<lower=0> sigma; }\n"),
		FileData:  zipOf(t, "toy_data.json", "{\n  \"N\": 3,\n  \"y\": [1, 2, 3]\n}\n"),
		FileDraws: zipOf(t, "toy_data-toy_model.json", draws),
		FileInfo: []byte(`{
  "name": "toy_data-toy_model",
  "inference": {"method": "stan_sampling", "method_arguments": {"chains": 2, "thin": 1}},
  "diagnostics": {
    "diagnostic_information": {"names": ["sigma", "theta[1]", "theta[2]"]},
    "ndraws": 12, "nchains": 2,
    "effective_sample_size_bulk": [10, 11, null],
    "r_hat": [1.0, 1.001, 1.002]
  },
  "checks_made": {"r_hat_below_1_01": true}
}
`),
	}
}

const toyName = "toy_data-toy_model"

// writeStaged writes the files of the posterior name into root/name.
func writeStaged(t testing.TB, root, name string, files map[string][]byte) {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeUpstream writes the files of the posterior name in posteriordb's
// own layout under root/posterior_database, with the model, data and
// reference names of toy posterior.
func writeUpstream(t testing.TB, root, name, model, data, ref string, files map[string][]byte) {
	t.Helper()
	base := filepath.Join(root, "posterior_database")
	put := func(rel string, b []byte) {
		if b == nil {
			return
		}
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join("posteriors", name+".json"), files[FilePosterior])
	put(filepath.Join("models", "stan", model+".stan"), files[FileModel])
	put(filepath.Join("data", "data", data+".json.zip"), files[FileData])
	if ref != "" {
		put(filepath.Join("reference_posteriors", "draws", "draws", ref+".json.zip"), files[FileDraws])
		put(filepath.Join("reference_posteriors", "draws", "info", ref+".info.json"), files[FileInfo])
	}
}

// openToy writes files as the toy posterior in the staged layout and
// opens it without checksums.
func openToy(t testing.TB, files map[string][]byte) *DB {
	t.Helper()
	root := t.TempDir()
	writeStaged(t, root, toyName, files)
	db, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	db.Sums = nil
	return db
}

// shapeInfo is a reference_info.json that gives the draws' shape only:
// ndraws draws over nchains chains.
func shapeInfo(ndraws, nchains int) []byte {
	return []byte(fmt.Sprintf(`{"diagnostics": {"ndraws": %d, "nchains": %d}}`, ndraws, nchains))
}
