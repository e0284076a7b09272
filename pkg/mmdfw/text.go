package mmdfw

import "github.com/mmdfw/mmdfw/pkg/setting"

// The values of the enumerations, their texts in experiment files and
// recorded settings, the empty text (the default) apart.
var (
	firstValues     = []First{FirstMAP, FirstPrior, FirstGiven, FirstTrained, firstSVGD}
	initValues      = []CandidateInit{InitPrior, InitSVGD, InitPerturb, InitLaplace}
	scaleValues     = []Scale{ScaleBandwidth, ScaleLaplace, ScaleGiven, ScaleTarget}
	pickValues      = []Pick{PickUniform, PickByWeight}
	directionValues = []Direction{Frozen, Self, Exact}
	ruleValues      = []Rule{BQ, LineSearch, Equal, Classic, Schedule, Stein, MMD}
	solverValues    = []WeightSolver{SolverFISTA, SolverPairwise}
	zValues         = []ZSource{ZExact, ZPool}
	kernelValues    = []KernelKind{RBFKernel, RFFKernel}
)

// parseText sets *v to the text b when it is empty or one of values, and
// to the empty text when it is def, the default's own name (PickUniform,
// RBFKernel; their empty text is what a file that names them has always
// recorded); otherwise it returns the *setting.Error of key.
func parseText[T ~string](v *T, b []byte, key string, def T, values []T) error {
	t := T(b)
	if def != "" && t == def {
		t = ""
	}
	if err := setting.OneOf(key, t, values...); err != nil {
		return err
	}
	*v = t
	return nil
}

// UnmarshalText accepts "" (FirstAuto), "map", "prior", "given", "trained"
// and "svgd" (the first SVGD particle, what FirstAuto is with SVGD
// particles).
func (f *First) UnmarshalText(b []byte) error { return parseText(f, b, "start", "", firstValues) }

// UnmarshalText accepts "" (InitAuto), "prior", "svgd", "perturb" and
// "laplace".
func (i *CandidateInit) UnmarshalText(b []byte) error { return parseText(i, b, "init", "", initValues) }

// UnmarshalText accepts "" (ScaleAuto), "bandwidth", "laplace", "given"
// and "target".
func (s *Scale) UnmarshalText(b []byte) error { return parseText(s, b, "scale", "", scaleValues) }

// UnmarshalText accepts "" and "uniform" (both the zero value, PickUniform)
// and "weight".
func (p *Pick) UnmarshalText(b []byte) error {
	return parseText(p, b, "pick", PickUniform, pickValues)
}

// UnmarshalText accepts "" (DirectionAuto), "frozen", "self" and "exact".
func (d *Direction) UnmarshalText(b []byte) error {
	return parseText(d, b, "direction", "", directionValues)
}

// UnmarshalText accepts "" (RuleAuto), "bq", "line-search", "equal",
// "classic", "schedule", "stein" and "mmd".
func (r *Rule) UnmarshalText(b []byte) error { return parseText(r, b, "weights", "", ruleValues) }

// UnmarshalText accepts "" (SolverAuto), "fista" and "pairwise".
func (w *WeightSolver) UnmarshalText(b []byte) error {
	return parseText(w, b, "weight_solver", "", solverValues)
}

// String is the solver's text, "auto" for SolverAuto.
func (w WeightSolver) String() string {
	if w == SolverAuto {
		return "auto"
	}
	return string(w)
}

// UnmarshalText accepts "" (ZAuto), "exact" and "pool".
func (z *ZSource) UnmarshalText(b []byte) error { return parseText(z, b, "z", "", zValues) }

// UnmarshalText accepts "" and "rbf" (both the zero value, RBFKernel) and
// "rff".
func (k *KernelKind) UnmarshalText(b []byte) error {
	return parseText(k, b, "kernel", RBFKernel, kernelValues)
}

// validateEnums returns the *setting.Error of the first enumerated field
// of s that holds none of its values.
func (s Settings) validateEnums() error {
	for _, err := range []error{
		setting.OneOf("start", s.First, firstValues...),
		setting.OneOf("init", s.CandidateInit, initValues...),
		setting.OneOf("pick", s.Pick, pickValues...),
		setting.OneOf("scale", s.Scale, scaleValues...),
		setting.OneOf("direction", s.Direction, directionValues...),
		setting.OneOf("weights", s.Weights, ruleValues...),
		setting.OneOf("weight_solver", s.WeightSolver, solverValues...),
		setting.OneOf("z", s.Z, zValues...),
		setting.OneOf("kernel", s.Kernel, kernelValues...),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}
