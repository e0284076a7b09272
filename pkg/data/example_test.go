package data_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/data"
)

func ExampleLookup() {
	d, _ := data.Lookup("naval-propulsion-plant")
	f, _ := d.File("data.txt")
	fmt.Println(d.Task, d.Rows, "rows,", d.Features, "features,", d.Splits, "splits", d.NTrain, "/", d.NTest)
	fmt.Println(f.Format, f.SHA256[:16], f.URLs[0][:34])
	// Output:
	// regression 11934 rows, 16 features, 20 splits 10741 / 1193
	// whitespace de0ea69da1efaab8 https://raw.githubusercontent.com/
}

func ExampleParseTable() {
	vals, rows, cols, err := data.ParseTable(strings.NewReader("2596,51,3,5\n2590,56,2,5\n"), "covtype.data", data.Comma, 0, nil)
	fmt.Println(vals, rows, cols, err)
	_, _, _, err = data.ParseTable(strings.NewReader("2596,51,3,5\n2590,5x,2,5\n"), "covtype.data", data.Comma, 4, nil)
	fmt.Println(err)
	// Output:
	// [2596 51 3 5 2590 56 2 5] 2 4 <nil>
	// covtype.data:2: column 2: non-numeric token "5x"
}

// A dataset of one's own in the PBP layout is a Dataset value whose files
// carry their checksums; LoadRegression then splits and standardises it.
func ExampleDataset_LoadRegression() {
	dir, err := os.MkdirTemp("", "data-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"data.txt":           "1 10\n2 12\n3 14\n4 13\n",
		"index_features.txt": "0\n",
		"index_target.txt":   "1\n",
		"n_splits.txt":       "1\n",
		"index_train_0.txt":  "0\n1\n2\n",
		"index_test_0.txt":   "3\n",
	}
	d := &data.Dataset{Name: "mine", Task: data.TaskRegression, Rows: 4, Cols: 2, Features: 1, Splits: 1}
	os.Mkdir(filepath.Join(dir, d.Name), 0o755)
	for name, content := range files {
		os.WriteFile(filepath.Join(dir, d.Name, name), []byte(content), 0o644)
		sum := sha256.Sum256([]byte(content))
		d.Files = append(d.Files, data.File{Name: name, SHA256: hex.EncodeToString(sum[:])})
	}
	r, err := d.LoadRegression(dir, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("x mean %.0f, y mean %.0f, y sd %.4f\n", r.XMean[0], r.YMean, r.YStd)
	fmt.Printf("test y %.4f → %.0f on the original scale\n", r.YTest[0], r.Unscale(r.YTest[0]))
	// Output:
	// x mean 2, y mean 12, y sd 1.6330
	// test y 0.6124 → 13 on the original scale
}

// A dataset of one's own: a CSV file with a header row, a class column and
// two features, split 75/25 by a seeded rule, which needs at least
// MinRows(0.75) rows (five on each side of every split).
func ExampleReadCSV() {
	src := "x1,x2,label\n"
	for i := range 20 {
		src += fmt.Sprintf("%d,%d,%s\n", i, 10*i, []string{"yes", "no"}[i%2])
	}
	t, err := data.ReadCSV(strings.NewReader(src), "own.csv")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Rows(), "rows; 75/25 splits need at least", data.MinRows(0.75))
	if err := t.CheckSeededSplit(0.75); err != nil {
		log.Fatal(err)
	}
	train, test, err := data.SeededSplit(t.Rows(), 0.75, 0)
	if err != nil {
		log.Fatal(err)
	}
	c, err := t.Classification(data.Columns{Target: "label"}, "yes", train, test)
	if err != nil {
		log.Fatal(err)
	}
	r, p := c.XTrain.Dims()
	fmt.Println(t.Header, r, "training rows,", p, "columns (two features and the bias)")
	_, err = t.Classification(data.Columns{Target: "label", Features: []string{"x3"}}, "yes", train, test)
	fmt.Println(err)
	// Output:
	// 20 rows; 75/25 splits need at least 19
	// [x1 x2 label] 15 training rows, 3 columns (two features and the bias)
	// own.csv:1: no column "x3" (columns: x1, x2, label)
}

// Check looks at the bytes, not only the sizes: a file of the right size
// whose sha256 differs makes its dataset corrupt.
func ExampleCheck() {
	dir, err := os.MkdirTemp("", "data-check")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	d, _ := data.Lookup("yacht")
	f, _ := d.File("data.txt")
	os.Mkdir(filepath.Join(dir, d.Name), 0o755)
	// The right size, the wrong bytes.
	os.WriteFile(filepath.Join(dir, d.Name, f.Name), make([]byte, f.Size), 0o644)
	fmt.Println("Status:", d.Status(dir).State)
	sts, err := data.Check(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sts {
		if s.Name == d.Name {
			fmt.Println("Check: ", s.State, s.Bad)
		}
	}
	// Output:
	// Status: partial
	// Check:  corrupt [data.txt]
}
