package experiment

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// CSVModel is a model of one's own for the datasets experiment files
// declare ([data.NAME] with model = the name it is registered under,
// RegisterCSVModel), beside CSVLogistic and CSVBNN.
type CSVModel struct {
	// Version enters the cache keys of the cells of every dataset
	// declared with the model: bump it when the model changes.
	Version string
	// Classes says the target column holds two classes: a declaration
	// then needs positive (the class +1), and Build receives y = ±1 and
	// the features scaled to [0, 1] with the training rows' minimum and
	// range and a last column of ones, as the logistic model does.
	// Otherwise the target and the features are standardised with the
	// training rows' mean and sd, as the BNN's are.
	Classes bool
	// Build builds the problem of one split: its Target, and its Model.
	// A nil Model is filled with the wiring's plain one (the dataset's
	// name, label and Key; no test rows, no start of its own), which the
	// built-in method kinds and the metrics that read the target (ksd2)
	// need; a Model of one's own serves the methods and metrics of
	// one's own.
	Build func(ctx context.Context, in CSVInput) (*harness.Problem, error)
}

// CSVInput is one split of a declared CSV dataset, as a CSVModel receives
// it.
type CSVInput struct {
	// Dataset is the declaration's NAME, Label its label (NAME when the
	// declaration gives none), Split the split.
	Dataset, Label string
	Split          int
	// XTrain, YTrain are the training rows; XTest, YTest the rows the
	// metrics evaluate on (the test rows, or the held-out training rows
	// the experiment's eval.rows selects).
	XTrain, XTest *mat.Dense
	YTrain, YTest []float64
	// Threads is the cell's thread budget.
	Threads int
	// Key identifies the rows: the sha256 of the files and the rows
	// selection, for a Model's Describe.
	Key string
}

// csvModels are the CSV models registered on a registry.
type csvModels struct {
	mu sync.RWMutex
	m  map[string]CSVModel
}

type csvModelsKey struct{}

func csvModelsOf(r *harness.Registry) *csvModels {
	return r.Extension(csvModelsKey{}, func() any { return &csvModels{m: map[string]CSVModel{}} }).(*csvModels)
}

func (c *csvModels) get(name string) (CSVModel, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	m, ok := c.m[name]
	return m, ok
}

func (c *csvModels) names() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := []string{CSVLogistic, CSVBNN}
	for n := range c.m {
		out = append(out, n)
	}
	sort.Strings(out[2:])
	return out
}

// RegisterCSVModel adds to r the model name for the datasets experiment
// files declare in [data.NAME] tables (model = name): their cells then
// build their problems with m.Build from the declared CSV file's rows. The
// model reaches no other registry. CSVLogistic, CSVBNN, a name registered
// twice or a model without Build panics.
func RegisterCSVModel(r *harness.Registry, name string, m CSVModel) {
	if name == "" || m.Build == nil {
		panic("experiment: CSV model needs a name and a Build")
	}
	if name == CSVLogistic || name == CSVBNN {
		panic("experiment: CSV model " + name + " is built in")
	}
	c := csvModelsOf(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.m[name]; dup {
		panic("experiment: CSV model " + name + " registered twice")
	}
	c.m[name] = m
}

// checkOwn checks a declaration whose model is not built in against the
// registered models: a *harness.FieldError naming the key at fault.
func (c *csvModels) checkOwn(decl CSVData) (CSVModel, error) {
	fe := func(key, format string, args ...any) error {
		return &harness.FieldError{Key: key, Err: fmt.Errorf(format, args...)}
	}
	m, ok := c.get(decl.Model)
	if !ok {
		q := make([]string, 0)
		for _, n := range c.names() {
			q = append(q, fmt.Sprintf("%q", n))
		}
		return CSVModel{}, fe("model", "unknown model %q (%s)", decl.Model, strings.Join(q, ", "))
	}
	switch {
	case m.Classes && decl.Positive == "":
		return m, fe("positive", "model %q takes two classes: give the target value of the positive class", decl.Model)
	case !m.Classes && decl.Positive != "":
		return m, fe("positive", "model %q takes a numeric target, not classes", decl.Model)
	case decl.Hidden != 0:
		return m, fe("hidden", "hidden units belong to model = %q", CSVBNN)
	}
	return m, nil
}
