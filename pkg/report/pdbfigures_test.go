package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The posteriordb figures: the heatmap holds each method's geometric mean
// MMD²/floor per posterior at the largest N with the flagged seeds marked,
// the profile a step curve per method reaching the share of its runs
// scored; both keep every text inside the canvas.
func TestPDBFigures(t *testing.T) {
	cells := pdbFixture(0)
	rel := pdbRel(Done(cells), 100)
	// The fixture's MMD-FW scores 0.1/N over a floor of 0.001: 1 at N = 100.
	if v := rel["posteriordb.a"]["mmdfw"]; len(v) != 5 || math.Abs(geoMean(v)-1) > 1e-12 {
		t.Errorf("mmdfw on a: %v", v)
	}
	dir := t.TempDir()
	res := &Results{Cells: cells}
	files, err := plotPosteriorDB(res, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2*len(Formats) {
		t.Fatalf("files %v", files)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "posteriordb-heatmap.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// Stein Points on b (MMD²/floor 0.5) is flagged "ceiling" with the
	// KSD² of N/2 independent draws, counted on all five seeds; HMC on b
	// (0.1) has one stuck seed, its rhat/ess at 100 draws in all being the
	// set-up's and not counted; MMD-FW's ceiling as good as 2N draws is
	// not counted.
	texts := strings.Join(grepText(string(svg)), "|")
	for _, want := range []string{"|0.5 F5/5|", "|0.1 F1/5|", "|1|"} {
		if !strings.Contains(texts, want) {
			t.Errorf("the heatmap lacks %q: %s", want, texts)
		}
	}
	if strings.Contains(texts, "|1 F") {
		t.Errorf("MMD-FW's uncounted ceiling marked: %s", texts)
	}
	for _, name := range PDBFigureNames {
		out, err := textOutside(filepath.Join(dir, name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 0 {
			t.Errorf("%s: text outside the canvas: %v", name, out)
		}
	}
}

// grepText returns the texts of an SVG file's text elements.
func grepText(s string) []string {
	var out []string
	for _, part := range strings.Split(s, "</text>") {
		if i := strings.LastIndex(part, ">"); i >= 0 {
			out = append(out, part[i+1:])
		}
	}
	return out
}
