package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestLoadRegressionToy(t *testing.T) {
	dir, d := writeRegression(t, nil)
	r, err := d.LoadRegression(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Training statistics by hand: column 0 = {1,2,4,5}, column 2 = {2,4,1,7}, y = {10,12,11,15}.
	m0, s0 := 3.0, math.Sqrt((4+1+1+4)/4.0)
	m2, s2 := 3.5, math.Sqrt((2.25+0.25+6.25+12.25)/4.0)
	my, sy := 12.0, math.Sqrt((4+0+1+9)/4.0)
	const tol = 1e-14
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"XMean[0]", r.XMean[0], m0}, {"XStd[0]", r.XStd[0], s0},
		{"XMean[1]", r.XMean[1], 5}, {"XStd[1] (constant)", r.XStd[1], 1},
		{"XMean[2]", r.XMean[2], m2}, {"XStd[2]", r.XStd[2], s2},
		{"YMean", r.YMean, my}, {"YStd", r.YStd, sy},
		{"XTrain[1,0]", r.XTrain.At(1, 0), (2 - m0) / s0},
		{"XTest[1,0]", r.XTest.At(1, 0), (9 - m0) / s0},
		{"XTest[0,2]", r.XTest.At(0, 2), (3 - m2) / s2},
		{"XTest[1,1] (constant)", r.XTest.At(1, 1), 0},
		{"YTest[1]", r.YTest[1], (20 - my) / sy},
		{"Unscale(YTest[0])", r.Unscale(r.YTest[0]), 9},
	} {
		if math.Abs(c.got-c.want) > tol {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if rr, cc := r.XTrain.Dims(); rr != 4 || cc != 3 {
		t.Errorf("XTrain is %d×%d, want 4×3", rr, cc)
	}
	if rr, _ := r.XTest.Dims(); rr != 2 || len(r.YTest) != 2 || len(r.YTrain) != 4 {
		t.Errorf("test rows %d, len(YTest) %d, len(YTrain) %d", rr, len(r.YTest), len(r.YTrain))
	}
	if len(r.Files) != 6 {
		t.Errorf("Files lists %d files, want 6: %v", len(r.Files), r.Files)
	}
	for _, f := range r.Files {
		reg, _ := d.File(strings.TrimPrefix(f.Path, "toy/"))
		if f.SHA256 != reg.SHA256 {
			t.Errorf("%s: sha256 %s, want %s", f.Path, f.SHA256, reg.SHA256)
		}
	}
}

// TestLoadRegressionErrors checks that every bad input names its file and,
// where there is one, its line.
func TestLoadRegressionErrors(t *testing.T) {
	full := toyRegression["data.txt"]
	lines := strings.SplitAfter(full, "\n")
	for _, tc := range []struct {
		name  string
		edits map[string]string
		split int
		want  []string
	}{
		{"truncated at a line end", map[string]string{"data.txt": strings.Join(lines[:5], "")}, 0,
			[]string{"data.txt: 5 rows, want 6 (truncated file?)"}},
		{"truncated inside a line", map[string]string{"data.txt": full[:len(full)-8]}, 0,
			[]string{"data.txt:6: 3 columns, want 4"}},
		{"wrong column count", map[string]string{"data.txt": strings.Replace(full, "5  2.0  10", "5  2.0  10 3", 1)}, 0,
			[]string{"data.txt:1: 5 columns, want 4"}},
		{"non-numeric token", map[string]string{"data.txt": strings.Replace(full, "7.0", "7.O", 1)}, 0,
			[]string{"data.txt:4: column 3: non-numeric token \"7.O\""}},
		{"empty data file", map[string]string{"data.txt": ""}, 0, []string{"data.txt: file is empty"}},
		{"duplicated train index", map[string]string{"index_train_0.txt": "0\n1\n2\n1\n"}, 0,
			[]string{"index_train_0.txt:4: column 1: index 1 duplicated (first on line 2)"}},
		{"test index out of range", map[string]string{"index_test_0.txt": "4\n6\n"}, 0,
			[]string{"index_test_0.txt:2: column 1: index 6 out of range [0, 6)"}},
		{"train and test overlap", map[string]string{"index_test_0.txt": "4\n2\n"}, 0,
			[]string{"index_test_0.txt:2: row 2 is also in index_train_0.txt (line 3)"}},
		{"feature index out of range", map[string]string{"index_features.txt": "0\n4\n"}, 0,
			[]string{"index_features.txt:2: column 1: index 4 out of range [0, 4)"}},
		{"target is a feature", map[string]string{"index_target.txt": "2\n"}, 0,
			[]string{"index_features.txt: target column 2 is also a feature"}},
		{"empty split file", map[string]string{"index_test_0.txt": "\n"}, 0, []string{"index_test_0.txt: file is empty"}},
		{"split out of range", nil, 1, []string{"toy: split 1 out of range [0, 1)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, d := writeRegression(t, tc.edits)
			_, err := d.LoadRegression(dir, tc.split)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadChecksumMismatch(t *testing.T) {
	dir, d := writeRegression(t, nil)
	path := filepath.Join(dir, "toy", "data.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[10] = '7' // one byte, still a valid table
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	reg, _ := d.File("data.txt")
	_, err = d.LoadRegression(dir, 0)
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *ChecksumError", err)
	}
	if ce.Path != path || ce.Want != reg.SHA256 || ce.Got != sha(b) {
		t.Errorf("ChecksumError %+v, want path %s want %s got %s", ce, path, reg.SHA256, sha(b))
	}
	for _, s := range []string{path, reg.SHA256, sha(b)} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
	// Verify reports the same file, and only it.
	n, err := d.Verify(dir)
	if !errors.As(err, &ce) || ce.Path != path || n != len(d.Files)-1 {
		t.Errorf("Verify = %d, %v; want %d ok and a mismatch of %s", n, err, len(d.Files)-1, path)
	}
}

func TestLoadMissingFile(t *testing.T) {
	dir, d := writeRegression(t, nil)
	if err := os.Remove(filepath.Join(dir, "toy", "index_test_0.txt")); err != nil {
		t.Fatal(err)
	}
	_, err := d.LoadRegression(dir, 0)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "index_test_0.txt") {
		t.Fatalf("error %v, want a not-exist error naming index_test_0.txt", err)
	}
	if s := d.Status(dir); s.State != StatePartial || len(s.Missing) != 1 || s.Missing[0] != "index_test_0.txt" {
		t.Errorf("Status = %+v, want partial with index_test_0.txt missing", s)
	}
}

// toyCovertype writes a 10-row covtype-like CSV: column 0 = i, column 1 = 7
// (constant), column 2 = i², label = i mod 3 + 1 (class 2 for i = 1, 4, 7).
func toyCovertype() []byte {
	var b bytes.Buffer
	for i := range 10 {
		fmt.Fprintf(&b, "%d,7,%d,%d\n", i, i*i, i%3+1)
	}
	return b.Bytes()
}

func toyClassDataset(t *testing.T, dir string, full, gz, subset bool) *Dataset {
	t.Helper()
	d := &Dataset{Name: "covertype", Task: TaskClassification, Rows: 10, Cols: 4, Features: 3, NegativeClass: 2}
	folder := filepath.Join(dir, d.Name)
	raw := toyCovertype()
	if gz {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(raw)
		zw.Close()
		f := writeFile(t, folder, "toy.csv.gz", b.Bytes())
		f.Role, f.Format, f.Rows = RoleData, FormatCSVGzip, 10
		d.Files = append(d.Files, f)
	}
	if full {
		f := writeFile(t, folder, "toy.csv", raw)
		f.Role, f.Format, f.Rows = RoleData, FormatCSV, 10
		d.Files = append(d.Files, f)
	}
	if subset {
		f := writeFile(t, folder, "toy.5.csv", raw[:bytes.Index(raw, []byte("5,7,25"))])
		f.Role, f.Format, f.Rows, f.Subset = RoleData, FormatCSV, 5, true
		d.Files = append(d.Files, f)
	}
	return d
}

func TestLoadClassificationToy(t *testing.T) {
	dir := t.TempDir()
	d := toyClassDataset(t, dir, true, false, false)
	c, err := d.LoadClassification(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subset || c.Label != "Covertype" || c.Rows != 10 {
		t.Errorf("Subset %v, Label %q, Rows %d; want false, Covertype, 10", c.Subset, c.Label, c.Rows)
	}
	if r, k := c.XTrain.Dims(); r != 8 || k != 4 {
		t.Fatalf("XTrain %d×%d, want 8×4", r, k)
	}
	if r, _ := c.XTest.Dims(); r != 2 || len(c.YTest) != 2 || len(c.YTrain) != 8 {
		t.Fatalf("XTest rows %d, len(YTest) %d, len(YTrain) %d; want 2, 2, 8", r, len(c.YTest), len(c.YTrain))
	}
	if c.Scale[1] != 1 || c.Min[1] != 7 {
		t.Errorf("constant column: Min %v Scale %v, want 7 and 1", c.Min[1], c.Scale[1])
	}
	// Every row must come back whole: recover i from column 0 and check
	// column 2 = i², the label and the bias; and every i once over both parts.
	seen := map[int]bool{}
	check := func(x *mat.Dense, y []float64, part string) {
		r, _ := x.Dims()
		for k := range r {
			iv := x.At(k, 0)*c.Scale[0] + c.Min[0]
			i := int(math.Round(iv))
			if math.Abs(iv-float64(i)) > 1e-12 || seen[i] {
				t.Fatalf("%s row %d: recovered i = %v (seen %v)", part, k, iv, seen[i])
			}
			seen[i] = true
			if got := x.At(k, 2)*c.Scale[2] + c.Min[2]; math.Abs(got-float64(i*i)) > 1e-9 {
				t.Errorf("%s row %d (i=%d): column 2 = %v, want %d", part, k, i, got, i*i)
			}
			if x.At(k, 1) != 0 || x.At(k, 3) != 1 {
				t.Errorf("%s row %d: constant column %v (want 0), bias %v (want 1)", part, k, x.At(k, 1), x.At(k, 3))
			}
			want := 1.0
			if i%3+1 == 2 {
				want = -1
			}
			if y[k] != want {
				t.Errorf("%s row %d (i=%d): label %v, want %v", part, k, i, y[k], want)
			}
		}
	}
	check(c.XTrain, c.YTrain, "train")
	check(c.XTest, c.YTest, "test")
	if len(seen) != 10 {
		t.Errorf("%d distinct rows, want 10", len(seen))
	}
	// Train features span exactly [0, 1].
	for _, j := range []int{0, 2} {
		col := mat.Col(nil, j, c.XTrain)
		sort.Float64s(col)
		if col[0] != 0 || col[len(col)-1] != 1 {
			t.Errorf("train column %d spans [%v, %v], want [0, 1]", j, col[0], col[len(col)-1])
		}
	}

	// The same seed gives the same split; another seed another one.
	c2, err := d.LoadClassification(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(c.XTrain, c2.XTrain) || !mat.Equal(c.XTest, c2.XTest) {
		t.Error("seed 3 gave two different splits")
	}
	c4, err := d.LoadClassification(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	if mat.Equal(c.XTrain, c4.XTrain) {
		t.Error("seeds 3 and 4 gave the same training order")
	}
}

func TestLoadClassificationForms(t *testing.T) {
	dir := t.TempDir()
	plain, err := toyClassDataset(t, dir, true, false, false).LoadClassification(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	gz, err := toyClassDataset(t, dir, false, true, false).LoadClassification(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(plain.XTrain, gz.XTrain) || !strings.HasSuffix(gz.Files[0].Path, "toy.csv.gz") {
		t.Error("the gzip form does not load as the plain form")
	}

	// Only the prefix present: subset, labelled as such.
	dir = t.TempDir()
	d := toyClassDataset(t, dir, false, false, true)
	d.Files = append(d.Files, File{Name: "toy.csv", Role: RoleData, Format: FormatCSV, Rows: 10, SHA256: sha(toyCovertype())})
	sub, err := d.LoadClassification(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !sub.Subset || sub.Label != "Covertype (5-row prefix)" || sub.Rows != 5 {
		t.Errorf("prefix: Subset %v Label %q Rows %d", sub.Subset, sub.Label, sub.Rows)
	}
	if s := d.Status(dir); s.State != StateSubset || s.Rows != 5 || s.Expected != 10 || s.String() != "subset 5/10" {
		t.Errorf("Status = %+v (%s), want subset 5/10", s, s)
	}
	// Full and prefix both present: the full one is used.
	writeFile(t, filepath.Join(dir, "covertype"), "toy.csv", toyCovertype())
	if c, err := d.LoadClassification(dir, 1); err != nil || c.Subset || c.Rows != 10 {
		t.Errorf("with the full file present: %v, %+v", err, c)
	}
	if s := d.Status(dir); s.State != StateComplete || s.Rows != 10 {
		t.Errorf("Status = %+v, want complete 10/10", s)
	}
}

func TestLoadClassificationBadLabel(t *testing.T) {
	dir := t.TempDir()
	d := &Dataset{Name: "covertype", Task: TaskClassification, Rows: 3, Cols: 2, NegativeClass: 2}
	f := writeFile(t, filepath.Join(dir, d.Name), "c.csv", []byte("1,1\n2,2.5\n3,1\n"))
	f.Role, f.Format, f.Rows = RoleData, FormatCSV, 3
	d.Files = []File{f}
	_, err := d.LoadClassification(dir, 1)
	if err == nil || !strings.Contains(err.Error(), "c.csv: row 2: class label 2.5") {
		t.Fatalf("error %v, want one naming c.csv row 2", err)
	}
}

func TestPermuteRows(t *testing.T) {
	const n, cols = 7, 3
	a := make([]float64, n*cols)
	for i := range a {
		a[i] = float64(i)
	}
	perm := []int{3, 0, 6, 1, 2, 5, 4}
	want := make([]float64, 0, n*cols)
	for _, k := range perm {
		want = append(want, a[k*cols:(k+1)*cols]...)
	}
	permuteRows(a, cols, perm)
	for i := range a {
		if a[i] != want[i] {
			t.Fatalf("got %v, want %v", a, want)
		}
	}
}

func TestLookup(t *testing.T) {
	if _, err := LoadRegression(t.TempDir(), "covertype", 0); err == nil {
		t.Error("LoadRegression accepted a classification set")
	}
	if _, err := LoadClassification(t.TempDir(), "nope", 0); err == nil {
		t.Error("LoadClassification accepted an unknown name")
	}
	want := []string{"covertype", "bostonHousing", "concrete", "energy", "kin8nm", "naval-propulsion-plant",
		"power-plant", "protein-tertiary-structure", "wine-quality-red", "yacht", "year-prediction-MSD"}
	if got := strings.Join(Names(), " "); got != strings.Join(want, " ") {
		t.Errorf("Names() = %s\nwant      %s", got, strings.Join(want, " "))
	}
	for _, d := range Datasets() {
		var data int
		for _, f := range d.Files {
			if f.Role == RoleData {
				data++
			}
			if f.SHA256 != "" && len(f.SHA256) != 64 {
				t.Errorf("%s/%s: sha256 %q", d.Name, f.Name, f.SHA256)
			}
		}
		if data == 0 || d.Rows == 0 || d.Cols == 0 || d.Features == 0 {
			t.Errorf("%s: %d data files, rows %d, cols %d, features %d", d.Name, data, d.Rows, d.Cols, d.Features)
		}
		if d.Task == TaskRegression && d.Name != "year-prediction-MSD" {
			if len(d.Files) != 4+2*d.Splits+4 || d.NTrain+d.NTest != d.Rows {
				t.Errorf("%s: %d files for %d splits, train+test %d+%d != %d", d.Name, len(d.Files), d.Splits, d.NTrain, d.NTest, d.Rows)
			}
		}
	}
}
