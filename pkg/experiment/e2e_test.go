package experiment

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/report"
	"github.com/mmdfw/mmdfw/pkg/report/paper"
)

// TestQuickProfileEndToEnd runs the quick profile of experiments/rff.toml on
// its gauss2d cells (no data files needed) from the TOML through the
// harness to CSVs, then through the report to PNG figures and the report's
// claim-2 line: the whole path `repro run` and `repro report` take.
func TestQuickProfileEndToEnd(t *testing.T) {
	e, err := harness.LoadFile(testRegistry, "../../experiments/rff.toml", "quick")
	if err != nil {
		t.Fatal(err)
	}
	var cells []*harness.Cell
	for _, c := range harness.Plan([]*harness.Experiment{e}) {
		if c.Dataset == "gauss2d" {
			cells = append(cells, c)
		}
	}
	if len(cells) < 2 {
		t.Fatalf("%d gauss2d cells in the quick profile of rff.toml", len(cells))
	}
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	r := harness.NewRunner(testRegistry, harness.Options{Results: results, Jobs: 2, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	sum, err := r.Run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed > 0 || sum.Skipped > 0 {
		t.Fatalf("run: %v", sum)
	}

	// The CSVs: header, finite values, the scheduled metric and, for every
	// MMD-FW cell on this exact Gaussian target, MMD² in its own kernel.
	for _, c := range cells {
		csvPath, _ := r.Paths(c)
		b, err := os.ReadFile(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		if h, _, _ := strings.Cut(string(b), "\n"); h != harness.CSVHeader {
			t.Errorf("%s: header %q", c.ID, h)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		seen := map[string]int{}
		for _, row := range rows[1:] {
			v, err := strconv.ParseFloat(row[10], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: value %q of %s at step %s", c.ID, row[10], row[9], row[6])
			}
			seen[row[9]]++
		}
		// MMD² in the method's own kernel is exact where z is: an MMD-FW
		// cell whose z comes from a pool, and the pool's own HMC cell,
		// record MMD² to the target only.
		own := c.Method.Kind == KindMMDFW
		if cfg, ok := c.Method.Settings.(MMDFWConfig); ok && cfg.needsPool() {
			own = false
		}
		switch {
		case c.Method.Kind == KindHMC && seen[MMD2] < 1, c.Method.Kind != KindHMC && seen[MMD2] < 3:
			t.Errorf("%s: %d %s rows", c.ID, seen[MMD2], MMD2)
		case own && seen[paper.KernelMMD2] != seen[MMD2], !own && seen[paper.KernelMMD2] != 0:
			t.Errorf("%s: %d %s rows and %d %s rows", c.ID, seen[MMD2], MMD2, seen[paper.KernelMMD2], paper.KernelMMD2)
		}
	}

	// The figures and the report.
	res, err := report.Load(results)
	if err != nil {
		t.Fatal(err)
	}
	res.Declare(e)
	res.DescribeKinds(testRegistry.Kinds())
	res.Checks = testRegistry.Checks()
	figs := filepath.Join(dir, "fig")
	files, err := report.Plot(res, figs, paper.Plugin{})
	if err != nil {
		t.Fatal(err)
	}
	pngs := 0
	for _, f := range files {
		if filepath.Ext(f) != ".png" {
			continue
		}
		pngs++
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			t.Errorf("%s: %v", f, err)
		} else if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
			t.Errorf("%s: %v pixels", f, b)
		}
	}
	if pngs == 0 {
		t.Fatalf("no PNG among %v", files)
	}
	var out bytes.Buffer
	if err := report.Write(&out, res, report.Options{Figures: "fig", FigureDir: figs, Plugins: []report.Plugin{paper.Plugin{}}}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	// One split decides nothing: claim 2's row says so where the full
	// profile gives a verdict, with what the rule would say beside it.
	if !regexp.MustCompile(`\| 2\. [^\n]*\| \*\*one split: no verdict\*\* \| the rule would say (supported|not supported):`).MatchString(text) {
		t.Errorf("claim 2's row does not say that one split gives no verdict:\n%s", text)
	}
	if !strings.Contains(text, "| rff | Gaussian") || !strings.Contains(text, "own RFF kernel (`"+paper.KernelMMD2+"`)") {
		t.Errorf("claim 2 lacks the rff rows in the RFF kernel:\n%s", text)
	}
	if !strings.Contains(text, "![rff](fig/rff.png)") {
		t.Errorf("no link to the rff figure:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(figs, "rff.png")); err != nil {
		t.Error(err)
	}
}
