package pdbmodel

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// posteriordbDir is the staged posteriordb folder, relative to this
// package (../shared/posteriordb from the repository root).
const posteriordbDir = "../../../shared/posteriordb"

// tdata is a data object as the tests read it: the same JSON the builders
// get, read independently of package pdbmodel's readers.
type tdata map[string]json.RawMessage

func (d tdata) num(key string) float64 {
	var v float64
	if err := json.Unmarshal(d[key], &v); err != nil {
		panic(fmt.Sprintf("test data %q: %v", key, err))
	}
	return v
}

func (d tdata) int(key string) int { return int(d.num(key)) }

func (d tdata) vec(key string) []float64 {
	var v []float64
	if err := json.Unmarshal(d[key], &v); err != nil {
		panic(fmt.Sprintf("test data %q: %v", key, err))
	}
	return v
}

func (d tdata) mat(key string) [][]float64 {
	var v [][]float64
	if err := json.Unmarshal(d[key], &v); err != nil {
		panic(fmt.Sprintf("test data %q: %v", key, err))
	}
	return v
}

// toData turns a synthetic data set into the JSON object a builder reads.
func toData(tb testing.TB, m map[string]any) tdata {
	tb.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	var d tdata
	if err := json.Unmarshal(b, &d); err != nil {
		tb.Fatal(err)
	}
	return d
}

// readZip returns the one member of a posteriordb .json.zip file.
func readZip(path string) ([]byte, error) {
	r, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if len(r.File) != 1 {
		return nil, fmt.Errorf("%s: %d members, want 1", path, len(r.File))
	}
	f, err := r.File[0].Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	return io.ReadAll(f)
}

// stagedFolder returns the staged posterior folder, or skips the test
// saying why.
func stagedFolder(t testing.TB, folder string) string {
	t.Helper()
	dir := filepath.Join(posteriordbDir, folder)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("posteriordb folder %s is not staged (%v): real-data checks skipped", dir, err)
	}
	return dir
}

func stagedData(t testing.TB, dir string) tdata {
	t.Helper()
	b, err := readZip(filepath.Join(dir, "data.json.zip"))
	if err != nil {
		t.Fatal(err)
	}
	var d tdata
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s/data.json.zip: %v", dir, err)
	}
	return d
}

// reference is posteriordb's reference draws: the parameter names in the
// file's order and, per name, the draws of every chain laid end to end.
type reference struct {
	names []string
	draws map[string][]float64
}

func stagedReference(t *testing.T, dir string) reference {
	t.Helper()
	path := filepath.Join(dir, "reference_draws.json.zip")
	b, err := readZip(path)
	if err != nil {
		t.Fatal(err)
	}
	var chains []json.RawMessage
	if err := json.Unmarshal(b, &chains); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ref := reference{draws: map[string][]float64{}}
	for c, raw := range chains {
		var m map[string][]float64
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: chain %d: %v", path, c+1, err)
		}
		for k, v := range m {
			ref.draws[k] = append(ref.draws[k], v...)
		}
		if c == 0 {
			ref.names = objectKeys(t, raw)
		}
	}
	return ref
}

// objectKeys returns the keys of a JSON object in the order written.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// fdStep is the step of the finite differences of the gradient checks,
// unless a case sets its own.
const fdStep = 1e-4

// fdGrad is the five-point central difference of f at u in each coordinate,
// (−f(u+2h) + 8f(u+h) − 8f(u−h) + f(u−2h))/(12h); its error is O(h⁴) plus
// the rounding of f, ≈ 10⁻¹⁶|f|/h.
func fdGrad(f func([]float64) float64, u []float64, h float64) []float64 {
	g := make([]float64, len(u))
	v := append([]float64(nil), u...)
	for j := range u {
		at := func(t float64) float64 { v[j] = u[j] + t; r := f(v); v[j] = u[j]; return r }
		g[j] = (-at(2*h) + 8*at(h) - 8*at(-h) + at(-2*h)) / (12 * h)
	}
	return g
}

// relErr is maxⱼ |got − want| / max(1, |want|).
func relErr(got, want []float64) float64 {
	var m float64
	for j := range got {
		m = math.Max(m, math.Abs(got[j]-want[j])/math.Max(1, math.Abs(want[j])))
	}
	return m
}

// Log densities from the Stan code, with every constant (differences
// between points cancel them).

func normLP(x, mu, sd float64) float64 {
	z := (x - mu) / sd
	return -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
}

func studentLP(x, nu, mu, sd float64) float64 {
	z := (x - mu) / sd
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	return lg1 - lg2 - 0.5*math.Log(nu*math.Pi) - math.Log(sd) - (nu+1)/2*math.Log1p(z*z/nu)
}

func cauchyLP(x, mu, sd float64) float64 {
	z := (x - mu) / sd
	return -math.Log(math.Pi*sd) - math.Log1p(z*z)
}

func betaLP(x, a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return (a-1)*math.Log(x) + (b-1)*math.Log(1-x) + lab - la - lb
}

func logistic(u float64) float64 { return 1 / (1 + math.Exp(-u)) }
