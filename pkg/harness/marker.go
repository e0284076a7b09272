package harness

import (
	"encoding/json"
	"errors"
	"os"
	"time"
)

// MarkerSuffix ends the name of the file that marks a running cell,
// <results>/<profile>/<id>.running. It exists only while a process runs the cell, and
// that process holds a lock on it, so that a marker left by a killed
// process (a job past its time limit) is told from a live one.
const MarkerSuffix = ".running"

// Marker is the content of a running cell's marker file.
type Marker struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Start time.Time `json:"start"`
	// Job is the batch job running the cell (SLURM_JOB_ID, with the array
	// task when there is one), empty outside a batch system.
	Job string `json:"job,omitempty"`
}

// MarkerPath returns the running marker of c,
// <results>/<profile>/<id>.running.
func (r *Runner) MarkerPath(c *Cell) string {
	return r.cellBase(c) + MarkerSuffix
}

// Running reports whether a live process (this one or another sharing the
// results directory) is running c now.
func (r *Runner) Running(c *Cell) bool {
	return markerHeld(r.MarkerPath(c))
}

// errClaimed is the error of claiming a cell another live process runs.
var errClaimed = errors.New("claimed by another process")

// claim takes the running marker of c, exclusively, before any work on the
// cell, and holds it until end is called, which removes it. A cell that
// another live process (or another runner of this one) holds is
// errClaimed.
func (r *Runner) claim(c *Cell) (end func(), err error) {
	m := Marker{Host: hostInfo().Hostname, PID: os.Getpid(), Start: time.Now().UTC(), Job: os.Getenv("SLURM_JOB_ID")}
	if id, task := os.Getenv("SLURM_ARRAY_JOB_ID"), os.Getenv("SLURM_ARRAY_TASK_ID"); id != "" && task != "" {
		m.Job = id + "_" + task
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return claimMarker(r.MarkerPath(c), append(b, '\n'))
}
