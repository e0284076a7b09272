// Package pdbmodel holds posteriordb's models written in Go: each is a
// target.Target on the unconstrained space, with Stan's constraint
// transforms and their log-Jacobians, and the map from an unconstrained
// point back to the parameter names of posteriordb's reference draws
// ("theta[1]", "sigma", ...; transformed parameters included where the
// reference names them).
//
// A model is built from its data, the JSON object of a posteriordb data
// file, by the name posteriordb gives the model (New("eight_schools_noncentered", data)),
// so that any data set posteriordb pairs with the same model runs once its
// data file is given.
package pdbmodel

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mmdfw/mmdfw/pkg/target"
)

// Model is one posteriordb model bound to its data.
type Model struct {
	// Name is posteriordb's model name.
	Name string
	// Target is the log density on the unconstrained space, the
	// log-Jacobian of the constraint transforms included.
	Target target.Target
	// Names are the reference draws' parameter names, in the order
	// Constrain writes them.
	Names []string
	// Constrain writes the constrained values named by Names at the
	// unconstrained point u into dst (allocated when nil) and returns it.
	Constrain func(dst, u []float64) []float64
}

// Builder binds a model to its data, the fields of a posteriordb data file.
type Builder func(data map[string]json.RawMessage) (*Model, error)

var builders = map[string]Builder{}

// register adds a model's builder under posteriordb's model name; each
// model's file registers itself from an init function.
func register(name string, b Builder) {
	if _, dup := builders[name]; dup {
		panic("pdbmodel: model " + name + " registered twice")
	}
	builders[name] = b
}

// New binds the model posteriordb calls name to data.
func New(name string, data map[string]json.RawMessage) (*Model, error) {
	b, ok := builders[name]
	if !ok {
		return nil, fmt.Errorf("pdbmodel: no model %q (have %v)", name, Names())
	}
	m, err := b(data)
	if err != nil {
		return nil, fmt.Errorf("pdbmodel: model %s: %w", name, err)
	}
	return m, nil
}

// Names returns the names of the models this package holds, sorted.
func Names() []string {
	names := make([]string, 0, len(builders))
	for k := range builders {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
