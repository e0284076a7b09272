package harness

import (
	"math"
	"strconv"
)

// Roles an experiment file may declare with its top-level key role.
const (
	// RoleReport (or no role) is an experiment whose numbers are reported.
	RoleReport = "report"
	// RoleTuning is an experiment that chooses settings. It must not read
	// any row or split that a reported number reads: its metrics evaluate
	// validation or development rows carved from the training rows, or the
	// test rows of a split seed that is reserved for tuning (TuningSplits).
	RoleTuning = "tuning"
)

// Rows that the metrics of an experiment evaluate (the key eval.rows).
const (
	// RowsTest (or no eval.rows) evaluates the split's test rows, and the
	// method sees all of its training rows.
	RowsTest = "test"
	// RowsValidation carves a seeded fraction (eval.validation_fraction,
	// default DefaultValidationFraction) of the split's training rows:
	// the metrics evaluate them, the method sees the other training rows,
	// and the test rows are dropped when the split is loaded.
	RowsValidation = "validation"
	// RowsDevelopment holds out the development rows of the SVGD
	// reference code: the last round(0.1·n) of the n training rows, at most
	// 500, in file order. The metrics evaluate them, the method sees the
	// training rows before them, and the test rows are dropped.
	RowsDevelopment = "development"
	// RowsDevelopmentTest holds out the development rows of
	// RowsDevelopment from the method and keeps the test rows: the test
	// metrics (rmse, test_ll, accuracy) evaluate the test rows and their
	// dev_ twins (dev_rmse, dev_test_ll, dev_accuracy) the development rows,
	// at every snapshot. A report selects a snapshot by its development
	// score and reports its test score, never selecting on test rows. It
	// reads test rows, so a tuning experiment may not use it.
	RowsDevelopmentTest = "development+test"
)

// DefaultValidationFraction is the share of the training rows that
// eval.rows = "validation" holds out when eval.validation_fraction is not
// given: a fifth.
const DefaultValidationFraction = 0.2

// TuningSplits is the first split number reserved for tuning experiments.
// A reported experiment may not name a split at or above it, so that a
// dataset whose splits are seeds (Covertype's seeded 80/20 partition) can
// give a tuning experiment test rows that no reported figure reads; a
// dataset with a fixed number of splits refuses such a split when loading.
const TuningSplits = 1000

// Rows says which rows a cell's metrics evaluate and which its method sees.
// The zero value is the split as published: training rows for the method,
// test rows for the metrics.
type Rows struct {
	// Kind is "" (the same as RowsTest), RowsValidation or
	// RowsDevelopment.
	Kind string
	// Fraction is the share of the training rows held out by
	// RowsValidation, in (0, 1); it is resolved to
	// DefaultValidationFraction when the file does not give it.
	Fraction float64
	// Seed selects the validation rows of RowsValidation, with the dataset
	// name and the split.
	Seed int64
}

// HeldOut reports whether r carves its evaluation rows from the training
// rows (so that the test rows are never used).
func (r Rows) HeldOut() bool { return r.Kind == RowsValidation || r.Kind == RowsDevelopment }

// Carves reports whether r takes rows from the method's training rows:
// HeldOut, or RowsDevelopmentTest.
func (r Rows) Carves() bool { return r.HeldOut() || r.Kind == RowsDevelopmentTest }

// String is a stable description of r, for keys and messages: "test",
// "development", or "validation 0.2 seed 7".
func (r Rows) String() string {
	switch r.Kind {
	case RowsValidation:
		return "validation " + strconv.FormatFloat(r.Fraction, 'g', -1, 64) + " seed " + strconv.FormatInt(r.Seed, 10)
	case RowsDevelopment, RowsDevelopmentTest:
		return r.Kind
	}
	return RowsTest
}

// RowsSpec returns the rows selection of the schedule.
func (s Schedule) RowsSpec() Rows {
	return Rows{Kind: s.Rows, Fraction: s.ValidationFraction, Seed: s.ValidationSeed}
}

// Rows returns the rows that the cell's metrics evaluate, from its
// experiment's eval table. A dataset's Load carves them (see RowsValidation
// and RowsDevelopment); the zero Rows is the published split.
func (e *Env) Rows() Rows {
	switch {
	case e == nil:
		return Rows{}
	case e.exp != nil:
		return e.exp.Eval.RowsSpec()
	case e.Cell != nil && e.Cell.Experiment != nil:
		return e.Cell.Experiment.Eval.RowsSpec()
	}
	return Rows{}
}

// withRows returns ds with the rows selection of e entered into its
// checksums, so that the cache keys of cells, references and MAP artefacts
// of a carved split differ from those of the published split, and those of
// the published split stay as they were.
func withRows(ds *Dataset, e *Experiment) *Dataset {
	if ds == nil || e == nil || !e.Eval.RowsSpec().Carves() || ds.Checksums == nil {
		return ds
	}
	rows := e.Eval.RowsSpec().String()
	sums := ds.Checksums
	c := *ds
	c.Checksums = func(split int, env *Env) (map[string]string, error) {
		m, err := sums(split, env)
		if err != nil {
			return m, err
		}
		out := make(map[string]string, len(m)+1)
		for k, v := range m {
			out[k] = v
		}
		out["rows"] = rows
		return out, nil
	}
	return &c
}

// checkRows checks the role of the experiment and the rows its metrics
// evaluate, and resolves the default validation fraction into e.Eval. w
// maps a key to where the resolved document set it.
func (d *decoder) checkRows(doc *expDoc, e *Experiment, w func(key ...string) []string) error {
	switch doc.Role {
	case "", RoleReport, RoleTuning:
	default:
		return d.errAt(w("role"), "%q is not one of %q", doc.Role, []string{RoleReport, RoleTuning})
	}
	ev := &e.Eval
	switch ev.Rows {
	case "", RowsTest:
		ev.Rows = "" // the same key whether "test" is written or not
	case RowsValidation:
		if d.defined(w("eval", "validation_fraction")) {
			if f := ev.ValidationFraction; !(f > 0 && f < 1) || math.IsNaN(f) {
				return d.errAt(w("eval", "validation_fraction"), "%v is out of range (0, 1)", f)
			}
		} else {
			ev.ValidationFraction = DefaultValidationFraction
		}
	case RowsDevelopment, RowsDevelopmentTest:
	default:
		return d.errAt(w("eval", "rows"), "%q is not one of %q", ev.Rows, []string{RowsTest, RowsValidation, RowsDevelopment, RowsDevelopmentTest})
	}
	if err := d.checkRole(doc, e, w); err != nil {
		return err
	}
	if ev.Rows != RowsValidation {
		for _, k := range []string{"validation_fraction", "validation_seed"} {
			if d.defined(w("eval", k)) {
				return d.errAt(w("eval", k), "applies only to eval.rows = %q, not %q", RowsValidation, ev.RowsSpec().String())
			}
		}
	}
	return nil
}

// checkRole refuses a reserved split in a reported experiment and a
// reported split's test rows in a tuning experiment.
func (d *decoder) checkRole(doc *expDoc, e *Experiment, w func(key ...string) []string) error {
	ev := &e.Eval
	if doc.Role != RoleTuning {
		for _, s := range doc.Splits {
			if s >= TuningSplits {
				return d.errAt(w("splits"), "split %d is reserved for tuning experiments (splits ≥ %d need role = %q)", s, TuningSplits, RoleTuning)
			}
		}
		return nil
	}
	if ev.RowsSpec().HeldOut() {
		return nil
	}
	// A tuning experiment on test rows: only splits that no reported
	// experiment may name.
	for _, s := range doc.Splits {
		if s < TuningSplits {
			at := w("eval", "rows")
			if !d.defined(at) {
				at = w("eval", "metrics")
			}
			return d.errAt(at, "a tuning experiment must not read a reported split: metric %q would evaluate the test rows of split %d; "+
				"set eval.rows = %q or %q, or use only splits ≥ %d", doc.Eval.Metrics[0], s, RowsValidation, RowsDevelopment, TuningSplits)
		}
	}
	return nil
}
