package repro

import (
	"io"

	"github.com/mmdfw/mmdfw/pkg/experiment"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
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

// PosteriorModel is a posteriordb model bound to a posterior's data: its
// log density on the unconstrained space (a target.Target, the
// log-Jacobians of the constraint transforms included), the names of the
// reference draws' parameters and the maps between the two spaces.
// pkg/constrain builds one from a constrain.Posterior (see
// examples/own-posterior).
type PosteriorModel = pdbmodel.Model

// PosteriorModelBuilder binds a posteriordb model to the fields of a
// posterior's data JSON.
type PosteriorModelBuilder = pdbmodel.Builder

// RegisterPosteriorModel adds to r the posteriordb model name (the
// model_name of a posterior's JSON) that b binds to a posterior's data:
// the cells of the posteriordb datasets (PosteriorDBPrefix+"<posterior>")
// of every posterior of that model then run with it instead of being
// skipped as "model not available", and `repro pdb list` says the model
// is available. version enters the cache keys of those cells: bump it
// when the model's density changes. A model of pkg/pdbmodel's, or a name
// registered twice, panics; the model reaches no other registry.
func RegisterPosteriorModel(r *Registry, name, version string, b PosteriorModelBuilder) {
	experiment.RegisterPosteriorModel(r, name, version, b)
}

// PosteriorModels returns the names of the posteriordb models r's
// posteriordb datasets can build, sorted: pkg/pdbmodel's and those
// registered on r with RegisterPosteriorModel.
func PosteriorModels(r *Registry) []string { return experiment.PosteriorModels(r) }

// UncheckedPosteriors returns the posteriordb folder (PosteriorDB) and the
// posteriors of the named datasets that it reads without checksums: in the
// staged layout, those the staged table of thirteen posteriors does not
// list (a folder of one's own in that layout). Their files' sha256, as
// read, still enter the cache keys.
func UncheckedPosteriors(datasets []string) (root string, names []string) {
	return experiment.UncheckedPosteriors(datasets)
}

// CSVModel is a model of one's own for the CSV datasets experiment files
// declare ([data.NAME] tables with model = its name): its version, whether
// its target column holds two classes, and the Build of one split's
// problem from the file's rows.
type CSVModel = experiment.CSVModel

// CSVInput is one split of a declared CSV dataset as a CSVModel's Build
// receives it: the training and evaluation rows, scaled as the built-in
// models' are.
type CSVInput = experiment.CSVInput

// RegisterCSVModel adds to r the model name that [data.NAME] tables of
// experiment files may give (model = name) beside "logistic" and "bnn";
// m.Version enters the cache keys of their cells. The model reaches no
// other registry; a built-in name, one registered twice or a model
// without Build panics.
func RegisterCSVModel(r *Registry, name string, m CSVModel) { experiment.RegisterCSVModel(r, name, m) }
