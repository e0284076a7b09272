package harness

import (
	"github.com/BurntSushi/toml"
)

// Profiles an experiment file may define. A profile overrides fields of the
// base experiment; the empty profile is the base itself.
var Profiles = []string{"quick", "full"}

// Experiment is an experiment file resolved under one profile.
type Experiment struct {
	// File is the path the experiment was read from.
	File string
	// Profile is the profile applied ("" for the base).
	Profile string
	// ID names the experiment and its results folder.
	ID string
	// Description says what the experiment reproduces.
	Description string
	// Deviation, when not empty, says how this profile departs from the
	// paper's protocol (a shorter reference, fewer splits…); the report
	// lists it among the deviations.
	Deviation string
	// Seed enters every cell's random seed.
	Seed int64
	// Role is RoleTuning for an experiment that chooses settings (it may
	// read no reported split: see Rows), "" or RoleReport otherwise.
	Role string
	// Timed marks experiments whose curves are plotted against wall-clock
	// time: see the runner's documentation on -j.
	Timed bool
	// Datasets and Splits span the cells of every method.
	Datasets []string
	Splits   []int
	// Budget stops every cell's method.
	Budget Budget
	// Eval says which metrics are evaluated at which snapshots.
	Eval Schedule
	// Reference, when not nil, is the reference sampler of the experiment.
	Reference *Reference
	// Methods are in file order.
	Methods []*Method
	// own are the datasets the file declares in [data.NAME] tables.
	own map[string]*Dataset
	// Overrides are the KEY=VALUE overrides applied after the profile
	// (LoadFileSet), in the order they apply; the provenance records them.
	Overrides []string
	// Namespace is empty without overrides, else the first 8 hex digits
	// of the sha256 of the overrides in a canonical form (their values
	// decoded as TOML and written as JSON with sorted keys, so that the
	// order of --set and the spelling of a value do not matter). The
	// cells the overrides change, or add, store their results apart from
	// the file's own, under <results>/<profile>/<id>@<namespace>/
	// (Cell.Namespace); the cells they leave as the file has them (an
	// override that only selects datasets, splits or particle counts)
	// are the file's own, and share their results.
	Namespace string
	// ownCells are the ids of the cells that are the file's own cells
	// under the profile, unchanged by the overrides.
	ownCells map[string]bool
	// Figures are the figures the file declares in [[figures]] tables,
	// with their defaults set; they enter no cache key.
	Figures []Figure
	// FiguresDeclared is set when the file has a figures key, also an
	// empty one (figures = [] for an experiment whose output is a table):
	// the report draws default figures for an experiment without it.
	FiguresDeclared bool
	// Report names the report's plug-ins (section providers) that present
	// the experiment's results, as the file's top-level report key lists
	// them (report = ["paper"]); they enter no cache key.
	Report []string
	// Choose are a tuning experiment's declared choice rules ([[choose]]
	// tables, base of the file only); they enter no cache key.
	Choose []Choose
}

// Budget stops a method through its recorder: once Steps snapshots steps are
// reached, Seconds of compute time are spent or GradEvals per-datapoint
// gradient evaluations (particle.Snapshot.GradEvals, the machine-independent
// cost) are charged. Zero means no limit; an unset GradEvals leaves the
// cache keys as they were.
type Budget struct {
	Steps     int     `toml:"steps" json:"steps"`
	Seconds   float64 `toml:"seconds" json:"seconds"`
	GradEvals int64   `toml:"grad_evals" json:"grad_evals,omitempty"`
}

// Schedule selects the snapshots at which metrics are evaluated. A snapshot
// is evaluated when any rule selects it; with no rule, every snapshot is.
// The snapshot at which a budget stops the method, and the method's final
// particles, are always evaluated.
type Schedule struct {
	// Metrics are registered metric names, evaluated in this order.
	Metrics []string `toml:"metrics" json:"metrics"`
	// Every selects steps that are multiples of it.
	Every int `toml:"every" json:"every"`
	// EverySeconds selects a snapshot once this much compute time has
	// passed since the last evaluated one.
	EverySeconds float64 `toml:"every_seconds" json:"every_seconds"`
	// EveryGradEvals selects a snapshot once this many per-datapoint
	// gradient evaluations have been charged since the last evaluated one.
	EveryGradEvals int64 `toml:"every_grad_evals" json:"every_grad_evals,omitempty"`
	// Log selects the steps 1, 2, 5, 10, 20, 50…
	Log bool `toml:"log" json:"log"`
	// Rows names the rows the metrics evaluate: RowsTest (the default),
	// RowsValidation or RowsDevelopment (see Rows). The published split's
	// keys omit it.
	Rows string `toml:"rows" json:"rows,omitempty"`
	// ValidationFraction is the share of the training rows that
	// RowsValidation holds out; zero in a file means
	// DefaultValidationFraction.
	ValidationFraction float64 `toml:"validation_fraction" json:"validation_fraction,omitempty"`
	// ValidationSeed selects the validation rows of RowsValidation.
	ValidationSeed int64 `toml:"validation_seed" json:"validation_seed,omitempty"`
}

// Method is one method entry of an experiment.
type Method struct {
	// Name is the table name under [methods], the method's display name.
	Name string
	// Kind is the registered method kind.
	Kind string
	// Particles are the particle counts, one cell each; empty (the key
	// omitted: an empty list is a *ConfigError) means one cell with N = 0
	// (the method's own default).
	Particles []int
	// Datasets are the datasets the method runs on, in the experiment's
	// order: the method's own datasets list when the file gives one (a
	// subset of the experiment's, for a method that only some datasets
	// support, such as a closed form that exists for Gaussian targets
	// only), else all of the experiment's.
	Datasets []string
	// Settings is the resolved settings value (of the kind's type).
	Settings any
	// Protocols are the protocols (ProtocolPaper, ProtocolFair) under
	// which this method is the arm that stands for its kind in the
	// report's claims; empty when it stands for none. At most one method
	// of a kind claims each protocol in an experiment. Protocols enter no
	// cache key: they say how results are read, not how they are made.
	Protocols []string

	kind   *methodKind
	memory map[int]cellMemory // the estimate of each particle count
}

// The protocols a method may claim (key protocols): the paper's as it
// states it, and the fair one of the report.
const (
	ProtocolPaper = "paper"
	ProtocolFair  = "fair"
)

// Protocols are the values of a method's protocols key.
var Protocols = []string{ProtocolPaper, ProtocolFair}

// Reference is the reference sampler of an experiment (HMC).
type Reference struct {
	Kind      string
	Particles int
	Settings  any

	kind   *methodKind
	memory *cellMemory // the estimate of its draws, nil for none
}

type budgetDoc = Budget
type evalDoc = Schedule

type methodDoc struct {
	Kind      string         `toml:"kind"`
	Particles []int          `toml:"particles"`
	Datasets  []string       `toml:"datasets"`
	Settings  toml.Primitive `toml:"settings"`
	Protocols []string       `toml:"protocols"`
}

type refDoc struct {
	Kind      string         `toml:"kind"`
	Particles int            `toml:"particles"`
	Settings  toml.Primitive `toml:"settings"`
}

// expDoc is the shape of an experiment and of each of its profiles.
type expDoc struct {
	ID          string               `toml:"id"`
	Description string               `toml:"description"`
	Deviation   string               `toml:"deviation"`
	Seed        int64                `toml:"seed"`
	Role        string               `toml:"role"`
	Timed       bool                 `toml:"timed"`
	Datasets    []string             `toml:"datasets"`
	Splits      []int                `toml:"splits"`
	Budget      budgetDoc            `toml:"budget"`
	Eval        evalDoc              `toml:"eval"`
	Reference   refDoc               `toml:"reference"`
	Methods     map[string]methodDoc `toml:"methods"`
	// Data are the file's own datasets (RegisterFileDataset); only the
	// base of the file declares them.
	Data map[string]toml.Primitive `toml:"data"`
}

type fileDoc struct {
	expDoc
	Profiles map[string]toml.Primitive `toml:"profiles"`
	// Figures are declared in the base of the file only (figures.go).
	Figures []Figure `toml:"figures"`
	// Report too (Experiment.Report), and Choose.
	Report []string `toml:"report"`
	Choose []Choose `toml:"choose"`
}
