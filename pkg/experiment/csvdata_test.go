package experiment

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
)

const csvExp = `id = "own"
seed = 1
datasets = ["mine"]
splits = [0, 1]

[data.mine]
file = "own.csv"
target = "label"
features = ["x1", "x2"]
model = "logistic"
positive = "yes"
split_count = 3
train_fraction = 0.75

[eval]
metrics = ["accuracy"]

[methods.svgd]
kind = "svgd"
particles = [5]
settings = { iterations = 20, step_size = 0.05, batch = 4, whiten = "none", stop = "fixed" }
`

func ownCSV(rows int) string {
	var b strings.Builder
	b.WriteString("x1,x2,label\n")
	for i := 0; i < rows; i++ {
		lab := "no"
		if i%3 != 0 {
			lab = "yes"
		}
		b.WriteString(strings.Join([]string{itoa(i % 7), itoa(i % 5), lab}, ",") + "\n")
	}
	return b.String()
}

func constCSV(rows int) string {
	var b strings.Builder
	b.WriteString("x1,x2,label\n")
	for i := 0; i < rows; i++ {
		b.WriteString("1," + itoa(i%5) + ",yes\n")
	}
	return b.String()
}

func itoa(i int) string { return string(rune('0' + i)) }

func writeExp(t *testing.T, dir, exp, csv string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "own.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "own.toml")
	if err := os.WriteFile(p, []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func keysOf(t *testing.T, r *harness.Runner, path string) map[string]string {
	t.Helper()
	e, err := harness.LoadFile(testRegistry, path, "")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, c := range harness.Cells(e) {
		st, err := r.Status(c)
		if err != nil {
			t.Fatal(err)
		}
		m[c.ID] = st.Key
	}
	return m
}

// A CSV dataset runs like a built-in one, and its cache keys follow the
// file's bytes and the declaration, not the file's name or label.
func TestCSVDatasetRunsAndKeys(t *testing.T) {
	dir := t.TempDir()
	path := writeExp(t, dir, csvExp, ownCSV(40))
	r := harness.NewRunner(testRegistry, harness.Options{Results: filepath.Join(dir, "results"), Jobs: 1, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	e, err := harness.LoadFile(testRegistry, path, "")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Run(context.Background(), harness.Plan([]*harness.Experiment{e}))
	if err != nil || sum.Done != 2 {
		t.Fatalf("run: %v %v", sum, err)
	}
	// Its figure and its section in the report.
	res, err := report.Load(filepath.Join(dir, "results"))
	if err != nil {
		t.Fatal(err)
	}
	figs := filepath.Join(dir, "figures")
	if _, err := report.Plot(res, figs); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(figs, "own-accuracy.png")); err != nil {
		t.Error(err)
	}
	var out bytes.Buffer
	if err := report.Write(&out, res, report.Options{Figures: "fig", FigureDir: figs}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"## Experiments", "### own", "| mine | svgd | 5 | 2 | ", "![own-accuracy](fig/own-accuracy.png)"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	base := keysOf(t, r, path)
	// The label is for display: same keys.
	writeExp(t, dir, strings.Replace(csvExp, `model = "logistic"`, "model = \"logistic\"\nlabel = \"Mine\"", 1), ownCSV(40))
	if k := keysOf(t, r, path); k["own/svgd/mine/s0/n5"] != base["own/svgd/mine/s0/n5"] {
		t.Error("a label changed the key")
	}
	// One more row, the positive class or the split rule: new keys.
	for name, c := range map[string][2]string{
		"data":     {csvExp, ownCSV(41)},
		"positive": {strings.Replace(csvExp, `positive = "yes"`, `positive = "no"`, 1), ownCSV(40)},
		"fraction": {strings.Replace(csvExp, "0.75", "0.8", 1), ownCSV(40)},
		"features": {strings.Replace(csvExp, `features = ["x1", "x2"]`, `features = ["x2", "x1"]`, 1), ownCSV(40)},
	} {
		writeExp(t, dir, c[0], c[1])
		if k := keysOf(t, r, path); k["own/svgd/mine/s0/n5"] == base["own/svgd/mine/s0/n5"] {
			t.Errorf("%s: the key did not change", name)
		}
	}
}

func TestCSVDatasetErrors(t *testing.T) {
	for _, tc := range []struct {
		name, exp, csv, want string
	}{
		{"missing column", strings.Replace(csvExp, `"x2"]`, `"x3"]`, 1), ownCSV(20), `own.toml:6: key data.mine: ` + "%DIR%" + `/own.csv:1: no column "x3" (columns: x1, x2, label)`},
		{"non-numeric cell", csvExp, strings.Replace(ownCSV(20), "\n3,3,", "\n3,three,", 1), `/own.csv:5: column 2: "three" (column "x2") is not a number`},
		{"single class", strings.Replace(csvExp, `positive = "yes"`, `positive = "maybe"`, 1), ownCSV(20), `target column "label" has a single class: no row has the positive class "maybe"`},
		{"constant target", strings.Replace(strings.Replace(strings.Replace(csvExp, `model = "logistic"`, `model = "bnn"`, 1), "positive = \"yes\"\n", "", 1), `target = "label"
features = ["x1", "x2"]`, `target = "x1"
features = ["x2"]`, 1), constCSV(20), `target column "x1" is constant over the 19 training rows (every value is 1)`},
		{"non-numeric target", strings.Replace(strings.Replace(csvExp, `model = "logistic"`, `model = "bnn"`, 1), "positive = \"yes\"\n", "", 1), ownCSV(20), `/own.csv:2: column 3: "no" (column "label") is not a number`},
		{"unknown key", strings.Replace(csvExp, "split_count = 3", "split_count = 3\nsplitcount = 2", 1), ownCSV(20), "own.toml:13: key data.mine.splitcount: unknown key"},
		{"model", strings.Replace(csvExp, `model = "logistic"`, `model = "probit"`, 1), ownCSV(20), `own.toml:10: key data.mine.model: unknown model "probit"`},
		{"no positive", strings.Replace(csvExp, "positive = \"yes\"\n", "", 1), ownCSV(20), "own.toml:6: key data.mine.positive: a logistic model needs"},
		{"both split rules", strings.Replace(csvExp, "split_count = 3", "split_count = 3\nsplit_dir = \"s\"", 1), ownCSV(20), "own.toml:13: key data.mine.split_dir: give either"},
		{"fraction", strings.Replace(csvExp, "0.75", "1.5", 1), ownCSV(20), "own.toml:13: key data.mine.train_fraction: 1.5 is out of range"},
		{"built-in name", strings.Replace(strings.Replace(csvExp, "[data.mine]", "[data.gauss2d]", 1), `["mine"]`, `["gauss2d"]`, 1), ownCSV(20), "own.toml:6: key data.gauss2d: dataset \"gauss2d\" is a built-in dataset"},
		{"too few rows", csvExp, ownCSV(18), `own.toml:6: key data.mine: ` + "%DIR%" + `/own.csv: 18 data rows are too few for splits that train on 0.75 of them: a split needs at least 5 training and 5 test rows, which takes at least 19 rows`},
		{"absent file", strings.Replace(csvExp, `"own.csv"`, `"none.csv"`, 1), ownCSV(20), `key data.mine: file = "none.csv": stat`},
		{"device", strings.Replace(csvExp, `"own.csv"`, `"/dev/zero"`, 1), ownCSV(20), `own.toml:6: key data.mine: file = "/dev/zero": /dev/zero is not a regular file (Dc---------)`},
		{"over max_bytes", strings.Replace(csvExp, "split_count = 3", "split_count = 3\nmax_bytes = 100", 1), ownCSV(20), `own.toml:6: key data.mine: file = "own.csv": ` + "%DIR%" + `/own.csv has 165 bytes, more than the limit of 100`},
		{"negative max_bytes", strings.Replace(csvExp, "split_count = 3", "split_count = 3\nmax_bytes = -1", 1), ownCSV(20), `own.toml:13: key data.mine.max_bytes: -1 is out of range (≥ 1; 0 for 268435456)`},
		{"in a profile", csvExp + "[profiles.quick.data.mine]\ntarget = \"x1\"\n", ownCSV(20), "key profiles.quick.data: datasets are declared in the base of the file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeExp(t, dir, tc.exp, tc.csv)
			_, err := harness.LoadFile(testRegistry, path, "")
			want := strings.ReplaceAll(tc.want, "%DIR%", dir)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("got %v\nwant %q", err, want)
			}
		})
	}
	// A split beyond split_count fails its cell.
	dir := t.TempDir()
	path := writeExp(t, dir, strings.Replace(csvExp, "splits = [0, 1]", "splits = [0, 3]", 1), ownCSV(20))
	e, err := harness.LoadFile(testRegistry, path, "")
	if err != nil {
		t.Fatal(err)
	}
	r := harness.NewRunner(testRegistry, harness.Options{Results: t.TempDir()})
	cells := harness.Cells(e)
	// The data error fails that cell alone: Status reports it as the cell's
	// error, not as an error of the listing.
	st, err := r.Status(cells[1])
	if err != nil || st.Status != harness.Failed || st.Err == nil || !strings.Contains(st.Err.Error(), "data.mine: split 3 is out of range: split_count = 3 gives splits 0…2") {
		t.Errorf("split 3: %v, %s, %v", err, st.Status, st.Err)
	}
	if st, err := r.Status(cells[0]); err != nil || st.Err != nil {
		t.Errorf("split 0: %v, %v", err, st.Err)
	}
}

// The worked example of examples/own-data loads, and its dataset is the
// generated CSV.
func TestOwnDataExampleLoads(t *testing.T) {
	for _, f := range []string{"own-data.toml", "own-data-bnn.toml"} {
		for _, p := range []string{"", "quick"} {
			e, err := harness.LoadFile(testRegistry, filepath.Join("..", "..", "examples", "own-data", f), p)
			if err != nil {
				t.Fatal(err)
			}
			r := harness.NewRunner(testRegistry, harness.Options{Results: t.TempDir()})
			for _, c := range harness.Cells(e) {
				if _, err := r.Status(c); err != nil {
					t.Errorf("%s %s: %v", f, c.ID, err)
				}
			}
		}
	}
}
