package experiment

import (
	"cmp"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// The paper's protocols keep their settings. The method packages' zero
// Settings run in the target's own scales (the whitened coordinates of the
// Laplace fit at the MAP) and stop by a convergence criterion with the
// iteration or particle count as a ceiling; an experiment file that is
// silent on those keys means what it meant when its results were
// committed: the methods as the paper and the reference code run them, in
// the target's coordinates, for exactly the iterations or particles the
// file (or the old default) gives. The kind adapters therefore set these
// values explicitly where the file leaves them out, before they run (and
// before they validate, so that a file is refused or accepted as before).
// The cache key hashes the file's settings as decoded, not these, so no
// committed cell changes. A file opts in with the keys: whiten =
// "laplace" and stop = "plateau" (svgd), whiten = "laplace" and stop =
// "converged" and monitor = "all" (sgld), whiten = "laplace" and stop = "ksd" (sp), scale =
// "target" and stop = "ksd" (mmdfw); with scale = "bandwidth", init =
// "laplace" and starts = 5 (with z) are the package's candidate start.

// legacySVGD sets the reference code's coordinates, step, fixed iteration
// count and its default where s leaves them out.
func legacySVGD(s *svgd.Settings) {
	if s.Whiten == "" {
		s.Whiten = svgd.WhitenNone
		s.StepSize = cmp.Or(s.StepSize, svgd.DefaultStepSize)
	}
	if s.Stop == "" {
		s.Stop = svgd.StopFixed
		s.Iterations = cmp.Or(s.Iterations, svgd.DefaultIterations)
	}
}

// legacySGLD sets Welling & Teh's coordinates and polynomial schedule (its
// zero a then being 1/N) and the fixed iteration count where s leaves them
// out.
func legacySGLD(s *sgld.Settings) {
	if s.Whiten == "" {
		s.Whiten = sgld.WhitenNone
		s.Schedule = cmp.Or(s.Schedule, sgld.SchedulePolynomial)
	}
	if s.Stop == "" {
		s.Stop = sgld.StopFixed
		s.Iterations = cmp.Or(s.Iterations, sgld.DefaultIterations)
	}
	// The wiring's Keep caps the set; StopConverged read only those draws
	// before MonitorAll.
	s.Monitor = cmp.Or(s.Monitor, sgld.MonitorKept)
}

// legacySP sets the original's coordinates and a fixed number of points
// where s leaves them out.
func legacySP(s *sp.Settings) {
	if s.Whiten == "" {
		s.Whiten = sp.WhitenNone
	}
	if s.Stop == "" {
		s.Stop = sp.StopFixed
		s.N = cmp.Or(s.N, sp.DefaultN)
	}
}

// legacyMMDFW sets the scales ScaleAuto meant before ScaleTarget
// (ScaleGiven with given scales or a trained start, else ScaleBandwidth),
// the candidate start InitAuto meant before InitLaplace (InitPerturb,
// unless SVGD particles make it InitSVGD, one start per LMO) and a fixed
// number of particles
// where s leaves them out. s.Start, start and in must be the wiring's.
func legacyMMDFW(s *mmdfw.Settings, start particle.Start, in mmdfw.Inputs) {
	if s.CandidateInit == mmdfw.InitAuto && in.SVGD == nil && start.Particles == nil {
		s.CandidateInit = mmdfw.InitPerturb
	}
	s.Starts = cmp.Or(s.Starts, 1)
	if s.Scale == mmdfw.ScaleAuto {
		s.Scale = mmdfw.ScaleBandwidth
		if in.Scales != nil || s.First == mmdfw.FirstTrained {
			s.Scale = mmdfw.ScaleGiven
		}
	}
	if s.Stop == "" {
		s.Stop = mmdfw.StopFixed
		s.N = cmp.Or(s.N, mmdfw.DefaultN)
	}
}
