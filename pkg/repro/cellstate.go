package repro

import (
	"encoding/json"
	"io"
)

// cellJSON is one cell in the JSON of repro list and repro status.
type cellJSON struct {
	Index      int    `json:"index"`
	ID         string `json:"id"`
	File       string `json:"file"`
	Experiment string `json:"experiment"`
	Profile    string `json:"profile"`
	// Status is done, failed, skipped, stale or pending; Running is true
	// while a live process holds the cell's running marker.
	Status  string `json:"status"`
	Running bool   `json:"running"`
	// Key is the current cache key; RecordedKey the one of the results
	// found (they differ exactly when the cell is stale).
	Key         string `json:"key"`
	RecordedKey string `json:"recorded_key,omitempty"`
	// Reason says, for a stale cell, which inputs of the key changed.
	Reason string `json:"reason,omitempty"`
	// Error is the recorded error of a failed or skipped cell.
	Error string `json:"error,omitempty"`
	// Overrides are the --set overrides of this listing (they shape Key);
	// RecordedOverrides those the results found were computed with.
	Overrides         []string `json:"overrides,omitempty"`
	RecordedOverrides []string `json:"recorded_overrides,omitempty"`
	Results           struct {
		CSV        string `json:"csv"`
		Provenance string `json:"provenance"`
		// Present says whether the provenance file exists.
		Present bool `json:"present"`
	} `json:"results"`
}

// newCellJSON describes the state st of a cell as the runner r sees it.
func newCellJSON(r *Runner, st CellStatus) cellJSON {
	c := st.Cell
	j := cellJSON{
		Index: c.Index, ID: c.ID, File: c.Experiment.File, Experiment: c.Experiment.ID, Profile: c.Experiment.Profile,
		Status: string(st.Status), Running: r.Running(c), Key: st.Key, Reason: st.StaleReason(),
		Overrides: c.Experiment.Overrides,
	}
	j.Results.CSV, j.Results.Provenance = r.Paths(c)
	if p := st.Prov; p != nil {
		j.Results.Present = true
		j.RecordedKey, j.Error, j.RecordedOverrides = p.Key, p.Error, p.Overrides
	}
	return j
}

// writeJSON writes v as indented JSON and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
