package repro

import (
	"io"

	"github.com/mmdfw/mmdfw/pkg/experiment"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// Status is a cell's cache state: how its result ended (Done, Failed,
// Skipped), or that it has none matching its current cache key (Pending,
// Stale).
type Status = harness.Status

// Cell statuses. Pending and Stale are never written: they describe a cell
// without a matching provenance file.
const (
	Done    = harness.Done
	Failed  = harness.Failed
	Skipped = harness.Skipped
	Pending = harness.Pending
	Stale   = harness.Stale
)

// CellStatus is a cell's cache state as Runner.Status judges it: its
// status, its current cache key and its provenance, when it has one.
type CellStatus = harness.CellStatus

// Provenance is the JSON file written beside each cell's CSV: the cell,
// its settings, cache key, data checksums, code version, host, timings,
// outcome and the method's summary.
type Provenance = harness.Provenance

// CSVHeader is the header line of every cell's CSV.
const CSVHeader = harness.CSVHeader

// ReadProvenance reads a cell's provenance file (never through a symbolic
// link, and only a regular file).
func ReadProvenance(path string) (*Provenance, error) { return harness.ReadProvenance(path) }

// Counts are the states of a list of cells (Runner.Counts): done,
// running, failed, pending (stale and interrupted among them) and
// skipped.
type Counts = harness.Counts

// Select returns the cells whose index lies in spec: "A-B" (inclusive),
// "A-", "-B" or "A", indices as Load numbers them. A malformed spec, a
// reversed range or an index past the last cell is an error saying which.
func Select(cells []*Cell, spec string) ([]*Cell, error) { return harness.Select(cells, spec) }

// TerminalStderr returns os.Stderr when it is a terminal and nil
// otherwise: the Options.Progress that shows bars only to a person
// watching.
func TerminalStderr() io.Writer { return harness.TerminalStderr() }

// ReadReference decodes a cached reference sample file: its draws (rows
// in the order the reference method returned them) and the reference
// method's summary as JSON.
func ReadReference(path string) (set particle.Set, summary []byte, err error) {
	return harness.ReadReference(path)
}

// HMCChain is one chain's diagnostics in the summary of an HMC reference
// sample (the built-in kind hmc).
type HMCChain = experiment.HMCChain

// The posteriordb datasets: PosteriorDBPrefix+"<posterior>" names a
// posterior of the posteriordb folder (PosteriorDB), read from the folder
// SetPosteriorDB gives, else $PosteriorDBEnv, else SharedPosteriorDB when
// it is a folder.
const (
	PosteriorDBPrefix = experiment.PosteriorDBPrefix
	PosteriorDBEnv    = experiment.PosteriorDBEnv
	SharedPosteriorDB = experiment.SharedPosteriorDB
)

// SetPosteriorDB sets the posteriordb folder the built-in posteriordb
// datasets read, for every registry of the process (a staged folder or a
// clone of posteriordb's repository); "" restores the default.
func SetPosteriorDB(dir string) { experiment.SetPosteriorDB(dir) }

// PosteriorDB returns the posteriordb folder the built-in posteriordb
// datasets read: SetPosteriorDB's, else $MMDFW_POSTERIORDB, else
// ../shared/posteriordb when it is a folder, else "" (none).
func PosteriorDB() string { return experiment.PosteriorDB() }
