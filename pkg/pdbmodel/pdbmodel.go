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
// data file is given: sizes (N, T, K, ...) are read from the data.
//
// # The models
//
// Each follows its model.stan exactly, up to the additive constants Stan's
// ~ statements drop (a log density is defined up to a constant):
//
//	eight_schools_noncentered  θ̃ ~ N(0, 1), μ ~ N(0, 5), τ ~ Cauchy⁺(0, 5), yⱼ ~ N(μ + τθ̃ⱼ, σⱼ); reports θ, μ, τ
//	arK                        AR(K): yₜ ~ N(α + Σₖ βₖ yₜ₋ₖ, σ), t > K; α, βₖ ~ N(0, 10), σ ~ Cauchy⁺(0, 2.5)
//	arma11                     ARMA(1,1): errₜ = yₜ − μ − φyₜ₋₁ − θerrₜ₋₁ (ν₁ = μ + φμ), err ~ N(0, σ)
//	garch11                    σₜ² = α₀ + α₁(yₜ₋₁ − μ)² + β₁σₜ₋₁², σ₁ given; β₁ ∈ (0, 1 − α₁); flat priors
//	low_dim_gauss_mix          two-component normal mixture, ordered means, θ ~ Beta(5, 5)
//	kidscore_momiq, kidscore_interaction, logearn_interaction, logmesquite,
//	nes, blr, kilpisjarvi, diamonds
//	                           normal linear regressions y ~ N(Xβ, σ) over a design
//	                           built from the data (regression.go), each with its
//	                           own priors (flat where the Stan code has none)
//
// Each file's comment gives its density and gradient.
//
// # Adding a model
//
// A model is one file, pkg/pdbmodel/<model name>.go, with the registration
// line
//
//	func init() { register("<posteriordb model name>", build) }
//
// and a Builder that reads its data with Fields (sizes first, so that
// errors name the key at fault), declares the parameters in a
// constrain.Space in the order of the Stan program's parameters block (the
// unconstrained coordinates follow it), writes the log density and its
// gradient in the constrained space (pkg/logpdf has the common densities
// with their gradients), and returns FromPosterior(name, post). Where the
// reference reports a transformed parameter, declare it with
// Space.Derived (with its inverse) and list the reference's names with
// Space.Report. A normal linear regression needs only its design and priors
// (LinearRegression, with Columns, Ones and the priors Flat, Normal,
// StudentT and Cauchy). Fields, FromPosterior and LinearRegression are
// exported so that a model kept outside this package is written the same
// way.
//
// Its test is an entry of the cases table of models_test.go (TestRegistry
// fails for a registered model without one): the staged folder's name,
// synthetic data made in the test, and an independent log density written
// from the Stan code on the unconstrained point (transforms and
// log-Jacobian spelled out by hand).
// The table's checks then run on it: the gradient against central finite
// differences, the log density against the independent one (as differences
// between points, free of the dropped constants), and, where the staged
// posteriordb folder holds its posterior (../shared/posteriordb), the same
// checks on the real data, the names against the reference draws' keys and a
// smoke test at the reference mean.
package pdbmodel

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/mmdfw/mmdfw/pkg/constrain"
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
	// Unconstrain maps values named by Names (a reference draw, or the
	// mean of the draws) back to the unconstrained point, written into
	// dst (allocated when nil) and returned; it returns an error naming a
	// value outside its parameter's support.
	Unconstrain func(dst, c []float64) ([]float64, error)
	// UnconstrainedNames name the Target's coordinates by the parameter
	// element each maps to, in the order of the Stan program's parameters
	// block ("theta_trans[1]", "mu", "tau" for the non-centred eight
	// schools, whose reference reports theta instead).
	UnconstrainedNames []string
	// Init writes Stan's default starting point into dst: every
	// unconstrained coordinate uniform on (−2, 2).
	Init func(rng *rand.Rand, dst []float64)
}

// FromPosterior returns the Model, called name, of a constrained
// posterior: its target, names, maps and starting points are the
// Posterior's.
func FromPosterior(name string, p *constrain.Posterior) *Model {
	return &Model{
		Name:               name,
		Target:             p,
		Names:              p.Names(),
		Constrain:          p.Constrain,
		Unconstrain:        p.Unconstrain,
		UnconstrainedNames: p.UnconstrainedNames(),
		Init:               p.Init,
	}
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
