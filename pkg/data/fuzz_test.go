package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// checkTable asserts what a successful ParseTable promises.
func checkTable(t *testing.T, vals []float64, rows, cols int) {
	if rows <= 0 || cols <= 0 || len(vals) != rows*cols {
		t.Fatalf("rows %d, cols %d, %d values", rows, cols, len(vals))
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite value %v accepted", v)
		}
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("2596,51,3,258,0,510,221,232,148,6279,1,0,0,5\n2590,56,2,212,-6,390,220,235,151,6225,1,0,0,5\n"), 0)
	f.Add([]byte("2001,49.94357,21.47114,73.0775\n1999,-1e-3,2.5E+2,0\n"), 4)
	f.Add([]byte("1,,2\n"), 3)
	f.Add([]byte("1,2,\r\n3,4,5"), 0)
	f.Add([]byte(""), 2)
	f.Fuzz(func(t *testing.T, in []byte, cols int) {
		vals, rows, n, err := ParseTable(bytes.NewReader(in), "f.csv", Comma, cols%100, nil)
		if err == nil {
			checkTable(t, vals, rows, n)
		}
	})
}

func FuzzParseCSVGzip(f *testing.F) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("1,2,3\n4,5,6\n"))
	zw.Close()
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:len(b.Bytes())-5]) // truncated stream
	f.Add([]byte("not gzip"))
	f.Fuzz(func(t *testing.T, in []byte) {
		zr, err := gzip.NewReader(bytes.NewReader(in))
		if err != nil {
			return
		}
		vals, rows, n, err := ParseTable(zr, "f.csv.gz", Comma, 0, nil)
		if err == nil {
			checkTable(t, vals, rows, n)
		}
	})
}

func FuzzParseWhitespace(f *testing.F) {
	f.Add([]byte("   1.1380000e+00   3.0000000e+00   2.8996400e+02\n   2.0880000e+00   6.0000000e+00   6.9601800e+03\n\n"), 3)
	f.Add([]byte("-2.3 0.568 4.78\t3.99\n"), 0)
	f.Add([]byte("1 NaN 2\n"), 3)
	f.Add([]byte("0x1p-2 1_0 +Inf\n"), 0)
	f.Fuzz(func(t *testing.T, in []byte, cols int) {
		vals, rows, n, err := ParseTable(bytes.NewReader(in), "data.txt", Whitespace, cols%100, nil)
		if err == nil {
			checkTable(t, vals, rows, n)
		}
	})
}

func FuzzParseIndex(f *testing.F) {
	f.Add([]byte("11862\n10676\n10407\n"), 11934)
	f.Add([]byte("0\n1\n1\n"), 3)
	f.Add([]byte("-1 2\n"), 3)
	f.Add([]byte("99999999999999999999999\n"), 10)
	f.Fuzz(func(t *testing.T, in []byte, n int) {
		idx, err := ParseIndex(bytes.NewReader(in), "index_train_0.txt", n, nil)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, v := range idx {
			if v < 0 || v >= n || seen[v] {
				t.Fatalf("index %d accepted (n %d, seen %v)", v, n, seen[v])
			}
			seen[v] = true
		}
	})
}

// FuzzLoadRegression drives the whole PBP loader with fuzzed data and
// split files (registered with their own checksums, so that the parsers and
// the split checks, not the checksum, meet the input).
func FuzzLoadRegression(f *testing.F) {
	f.Add([]byte(toyRegression["data.txt"]), []byte(toyRegression["index_train_0.txt"]), []byte(toyRegression["index_test_0.txt"]))
	f.Add([]byte("1 2 3 4\n"), []byte("0\n"), []byte("0\n"))
	f.Add([]byte("1 5 2 10\n2 5 4 12\n"), []byte("1\n"), []byte("0\n"))
	base := f.TempDir()
	f.Fuzz(func(t *testing.T, data, train, test []byte) {
		dir, err := os.MkdirTemp(base, "")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		folder := filepath.Join(dir, "toy")
		rows := bytes.Count(data, []byte("\n"))
		d := &Dataset{Name: "toy", Task: TaskRegression, Rows: rows, Cols: 4}
		for name, content := range map[string][]byte{
			"data.txt": data, "index_train_0.txt": train, "index_test_0.txt": test,
			"index_features.txt": []byte("0\n1\n2\n"), "index_target.txt": []byte("3\n"), "n_splits.txt": []byte("1\n"),
		} {
			fl := writeFile(t, folder, name, content)
			if name == "data.txt" {
				fl.Role, fl.Rows = RoleData, 0 // any row count
			}
			d.Files = append(d.Files, fl)
		}
		r, err := d.LoadRegression(dir, 0)
		if err != nil {
			if !strings.Contains(err.Error(), folder) && !strings.Contains(err.Error(), "toy") {
				t.Fatalf("error %q names no file", err)
			}
			return
		}
		nt, _ := r.XTrain.Dims()
		ns, _ := r.XTest.Dims()
		if nt != len(r.YTrain) || ns != len(r.YTest) || nt == 0 || ns == 0 {
			t.Fatalf("train %d/%d test %d/%d", nt, len(r.YTrain), ns, len(r.YTest))
		}
		for _, v := range append(r.XStd, r.YStd) {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("scale %v", v)
			}
		}
	})
}

// fuzzMemoryLimit is the soft memory limit of the fuzz targets: an input
// that makes a reader allocate without bound then drives the garbage
// collector rather than the machine into the ground, and fails its
// allocation bound.
const fuzzMemoryLimit = 512 << 20

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// FuzzReadCSV: a table with a header either fails with a *ParseError or
// has distinct non-empty column names and rows of the header's width; a
// regression on its first column either fails or gives finite,
// standardised data.
func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("x1,x2,label\n0,10,yes\n1,20,no\n2,30,yes\n"))
	f.Add([]byte("a,b\n1,2\n3\n"))
	f.Add([]byte("\ufeffa,\"b,c\"\n1,\"2\"\n3,4\n"))
	f.Add([]byte("a,a\n1,1\n"))
	f.Add([]byte("y,x\n1,NaN\n2,3\n"))
	f.Add([]byte("a,b\n" + strings.Repeat("9", MaxCSVLine+1) + "\n"))
	f.Add([]byte("a,b\n\"" + strings.Repeat("x\n", 100) + "\",1\n"))
	debug.SetMemoryLimit(fuzzMemoryLimit)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 4<<20 {
			return
		}
		var c *CSV
		var err error
		got := allocated(func() { c, err = ReadCSV(bytes.NewReader(in), "f.csv") })
		// The text, and per field a string header and an index: a
		// bounded multiple of the input.
		if limit := uint64(64*len(in)) + 1<<20; got > limit {
			t.Errorf("allocated %d bytes for %d bytes of input, more than %d", got, len(in), limit)
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, h := range c.Header {
			if h == "" || seen[h] {
				t.Fatalf("header %q", c.Header)
			}
			seen[h] = true
		}
		for i, rec := range c.records {
			if len(rec) != len(c.Header) {
				t.Fatalf("row %d has %d fields, header %d", i, len(rec), len(c.Header))
			}
		}
		if c.Rows() < 2 || len(c.Header) < 2 {
			return
		}
		train := make([]int, c.Rows()-1)
		for i := range train {
			train[i] = i
		}
		r, err := c.Regression(Columns{Target: c.Header[0]}, train, []int{c.Rows() - 1})
		if err != nil {
			return
		}
		for _, v := range append(append([]float64{}, r.YTrain...), r.XTrain.RawMatrix().Data...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite standardised value %v", v)
			}
		}
	})
}
