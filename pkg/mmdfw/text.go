package mmdfw

import (
	"fmt"
	"slices"
)

// The text forms of the enumerations, as experiment files and recorded
// settings spell them. The zero (automatic) value of each has the empty
// text form, so that it is omitted from JSON and TOML.
var (
	startNames     = []string{StartAuto: "", StartMAP: "map", StartPrior: "prior", StartGiven: "given", StartTrained: "trained"}
	initNames      = []string{InitAuto: "", InitPrior: "prior", InitSVGD: "svgd", InitPerturb: "perturb", InitLaplace: "laplace"}
	scaleNames     = []string{ScaleAuto: "", ScaleBandwidth: "bandwidth", ScaleLaplace: "laplace", ScaleGiven: "given", ScaleTarget: "target"}
	pickNames      = []string{PickUniform: "uniform", PickByWeight: "weight"}
	directionNames = []string{DirectionAuto: "", Frozen: "frozen", Self: "self", Exact: "exact"}
	ruleNames      = []string{RuleAuto: "", BQ: "bq", LineSearch: "line-search", Equal: "equal",
		Classic: "classic", Schedule: "schedule", Stein: "stein", MMD: "mmd"}
	solverNames = []string{SolverAuto: "", SolverFISTA: "fista", SolverPairwise: "pairwise"}
	zNames      = []string{ZAuto: "", ZExact: "exact", ZPool: "pool"}
	kernelNames = []string{RBFKernel: "rbf", RFFKernel: "rff"}
)

// marshalEnum returns the text form of value v of the enumeration what.
func marshalEnum(names []string, what string, v int) ([]byte, error) {
	if v == int(startSVGD) && what == "Start" {
		return []byte("svgd"), nil
	}
	if v < 0 || v >= len(names) {
		return nil, fmt.Errorf("mmdfw: %s(%d) has no text form", what, v)
	}
	return []byte(names[v]), nil
}

// unmarshalEnum parses the text form b of the enumeration what. The empty
// text is the automatic value (index 0) where it has one.
func unmarshalEnum(names []string, what string, b []byte) (int, error) {
	s := string(b)
	if i := slices.Index(names, s); i >= 0 {
		return i, nil
	}
	if s == "" {
		return 0, nil
	}
	var allowed []string
	for _, n := range names {
		if n != "" {
			allowed = append(allowed, n)
		}
	}
	return 0, fmt.Errorf("mmdfw: %s %q is not one of %q", what, s, allowed)
}

// MarshalText returns "", "map", "prior", "given", "trained" or "svgd".
func (s Start) MarshalText() ([]byte, error) { return marshalEnum(startNames, "Start", int(s)) }

// UnmarshalText parses the forms of MarshalText.
func (s *Start) UnmarshalText(b []byte) error {
	if string(b) == "svgd" {
		*s = startSVGD
		return nil
	}
	v, err := unmarshalEnum(startNames, "Start", b)
	*s = Start(v)
	return err
}

// MarshalText returns "", "prior", "svgd" or "perturb".
func (i Init) MarshalText() ([]byte, error) { return marshalEnum(initNames, "Init", int(i)) }

// UnmarshalText parses the forms of MarshalText.
func (i *Init) UnmarshalText(b []byte) error {
	v, err := unmarshalEnum(initNames, "Init", b)
	*i = Init(v)
	return err
}

// MarshalText returns "", "bandwidth", "laplace", "given" or "target".
func (s Scale) MarshalText() ([]byte, error) { return marshalEnum(scaleNames, "Scale", int(s)) }

// UnmarshalText parses the forms of MarshalText.
func (s *Scale) UnmarshalText(b []byte) error {
	v, err := unmarshalEnum(scaleNames, "Scale", b)
	*s = Scale(v)
	return err
}

// MarshalText returns "uniform" or "weight".
func (p Pick) MarshalText() ([]byte, error) { return marshalEnum(pickNames, "Pick", int(p)) }

// UnmarshalText parses the forms of MarshalText; "" is PickUniform.
func (p *Pick) UnmarshalText(b []byte) error {
	v, err := unmarshalEnum(pickNames, "Pick", b)
	*p = Pick(v)
	return err
}

// MarshalText returns "", "frozen", "self" or "exact".
func (d Direction) MarshalText() ([]byte, error) {
	return marshalEnum(directionNames, "Direction", int(d))
}

// UnmarshalText parses the forms of MarshalText.
func (d *Direction) UnmarshalText(b []byte) error {
	v, err := unmarshalEnum(directionNames, "Direction", b)
	*d = Direction(v)
	return err
}

// MarshalText returns "", "bq", "line-search", "equal", "classic",
// "schedule", "stein" or "mmd".
func (r Rule) MarshalText() ([]byte, error) { return marshalEnum(ruleNames, "Rule", int(r)) }

// UnmarshalText parses the forms of MarshalText.
func (r *Rule) UnmarshalText(b []byte) error {
	v, err := unmarshalEnum(ruleNames, "Rule", b)
	*r = Rule(v)
	return err
}

// MarshalText returns "", "fista" or "pairwise".
func (w WeightSolver) MarshalText() ([]byte, error) {
	return marshalEnum(solverNames, "WeightSolver", int(w))
}

// UnmarshalText parses the forms of MarshalText.
func (w *WeightSolver) UnmarshalText(b []byte) error {
	v, err := unmarshalEnum(solverNames, "WeightSolver", b)
	*w = WeightSolver(v)
	return err
}

// String is the solver's text form (MarshalText), "auto" for SolverAuto.
func (w WeightSolver) String() string {
	if w == SolverAuto {
		return "auto"
	}
	if b, err := w.MarshalText(); err == nil {
		return string(b)
	}
	return fmt.Sprintf("WeightSolver(%d)", int(w))
}

// MarshalText returns "", "exact" or "pool".
func (z ZSource) MarshalText() ([]byte, error) { return marshalEnum(zNames, "ZSource", int(z)) }

// UnmarshalText parses the forms of MarshalText.
func (z *ZSource) UnmarshalText(b []byte) error {
	v, err := unmarshalEnum(zNames, "ZSource", b)
	*z = ZSource(v)
	return err
}

// MarshalText returns "rbf" or "rff".
func (k KernelKind) MarshalText() ([]byte, error) {
	return marshalEnum(kernelNames, "KernelKind", int(k))
}

// UnmarshalText parses the forms of MarshalText; "" is RBFKernel.
func (k *KernelKind) UnmarshalText(b []byte) error {
	v, err := unmarshalEnum(kernelNames, "KernelKind", b)
	*k = KernelKind(v)
	return err
}
