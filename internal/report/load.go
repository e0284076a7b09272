package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mmdfw/mmdfw/internal/harness"
)

// Row is one line of a cell's CSV: one metric at one evaluated snapshot.
type Row struct {
	Step      int
	Seconds   float64
	GradEvals int64
	Metric    string
	Value     float64
}

// Cell is one cell of the results tree: its provenance, its decoded summary
// and, when it finished, its CSV rows.
type Cell struct {
	// Prov is the cell's provenance file.
	Prov *harness.Provenance
	// Summary is Prov.Summary decoded (nil when absent or not an object).
	Summary map[string]any
	// Rows are the CSV rows in file order (nil unless the cell is done).
	Rows []Row
	// Path is the provenance file, for messages.
	Path string
}

// Results is a results tree as written by the harness: every cell whose
// provenance file exists, whatever its status.
type Results struct {
	// Dir is the results directory.
	Dir string
	// Cells are sorted by cell id.
	Cells []*Cell
}

// Load reads every cell of the results tree under dir. The shared
// artefacts (dir/.artefacts) are not cells and are skipped. A provenance
// file that cannot be decoded, or a CSV of a finished cell that is missing
// or malformed, is an error naming the file: a figure silently made from
// part of the results would be worse than none.
func Load(dir string) (*Results, error) {
	res := &Results{Dir: dir}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".json" {
			return nil
		}
		c, err := loadCell(path)
		if err != nil {
			return err
		}
		res.Cells = append(res.Cells, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(res.Cells, func(i, j int) bool { return res.Cells[i].Prov.Cell < res.Cells[j].Prov.Cell })
	return res, nil
}

func loadCell(path string) (*Cell, error) {
	p, err := harness.ReadProvenance(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := &Cell{Prov: p, Path: path}
	if len(p.Summary) > 0 {
		var m map[string]any
		if json.Unmarshal(p.Summary, &m) == nil {
			c.Summary = m
		}
	}
	if p.Status != harness.Done {
		return c, nil
	}
	csvPath := strings.TrimSuffix(path, ".json") + ".csv"
	f, err := os.Open(csvPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c.Rows, err = readRows(f, csvPath)
	return c, err
}

// readRows parses a cell's CSV, checking its header.
func readRows(r io.Reader, name string) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	if got := strings.Join(head, ","); got != harness.CSVHeader {
		return nil, fmt.Errorf("%s: header %q, want %q", name, got, harness.CSVHeader)
	}
	var rows []Row
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var rw Row
		var e1, e2, e3, e4 error
		rw.Step, e1 = strconv.Atoi(rec[6])
		rw.Seconds, e2 = strconv.ParseFloat(rec[7], 64)
		rw.GradEvals, e3 = strconv.ParseInt(rec[8], 10, 64)
		rw.Metric = rec[9]
		rw.Value, e4 = strconv.ParseFloat(rec[10], 64)
		if err := errors.Join(e1, e2, e3, e4); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		rows = append(rows, rw)
	}
}

// Experiment returns the cells of one experiment, in id order.
func (r *Results) Experiment(id string) []*Cell {
	var out []*Cell
	for _, c := range r.Cells {
		if c.Prov.Experiment == id {
			out = append(out, c)
		}
	}
	return out
}

// Done returns the finished cells among cells.
func Done(cells []*Cell) []*Cell {
	var out []*Cell
	for _, c := range cells {
		if c.Prov.Status == harness.Done {
			out = append(out, c)
		}
	}
	return out
}

// Metric returns the cell's (step, seconds, value) points of one metric in
// file order.
func (c *Cell) Metric(name string) []Row {
	var out []Row
	for _, r := range c.Rows {
		if r.Metric == name {
			out = append(out, r)
		}
	}
	return out
}

// Final returns the last recorded value of a metric, and false when the cell
// has none.
func (c *Cell) Final(metric string) (Row, bool) {
	for i := len(c.Rows) - 1; i >= 0; i-- {
		if c.Rows[i].Metric == metric {
			return c.Rows[i], true
		}
	}
	return Row{}, false
}

// HasMetric reports whether any cell records metric.
func HasMetric(cells []*Cell, metric string) bool {
	for _, c := range cells {
		for _, r := range c.Rows {
			if r.Metric == metric {
				return true
			}
		}
	}
	return false
}

// DatasetLabel is the label the wiring gives a dataset in its cells'
// summaries ("Covertype (20,000-row prefix)"), or the dataset's name.
func DatasetLabel(cells []*Cell, dataset string) string {
	for _, c := range cells {
		if c.Prov.Dataset != dataset {
			continue
		}
		if s, ok := c.Summary["dataset_label"].(string); ok && s != "" {
			return s
		}
	}
	return dataset
}

// Datasets lists the distinct datasets of cells, sorted by name.
func Datasets(cells []*Cell) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cells {
		if !seen[c.Prov.Dataset] {
			seen[c.Prov.Dataset] = true
			out = append(out, c.Prov.Dataset)
		}
	}
	sort.Strings(out)
	return out
}
