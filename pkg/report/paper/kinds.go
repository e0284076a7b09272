package paper

import (
	"encoding/json"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/report"
)

// The paper's methods by kind: the paper's claims compare MMD-FW with SVGD,
// Stein Points and SGLD, which the report's core does not name (it reads
// their traits, harness.KindTraits). A kind is compared after
// report.NormKind.

// IsMMDFW reports whether a method kind is MMD-FW.
func IsMMDFW(kind string) bool { return strings.HasPrefix(report.NormKind(kind), "mmdfw") }

// IsSVGD reports whether a method kind is SVGD.
func IsSVGD(kind string) bool { return report.NormKind(kind) == "svgd" }

// IsSP reports whether a method kind is Stein Points.
func IsSP(kind string) bool { n := report.NormKind(kind); return n == "sp" || n == "steinpoints" }

// IsGreedy reports whether a method adds one particle per step, so that
// the step of its snapshots is its particle count: MMD-FW and Stein Points
// (the kinds whose harness.KindTraits.OneParticlePerStep is set).
func IsGreedy(kind string) bool { return IsMMDFW(kind) || IsSP(kind) }

// KernelMMD2 is the metric name of MMD-FW's MMD² in its own kernel, as the
// method reports it (harness.StatPrefix + mmdfw.StatMMD2Kernel): exact in
// the random-feature space when z is exact (Gaussian targets). A
// random-feature series of report.OwnKernelSeries is read from it.
const KernelMMD2 = harness.StatPrefix + "mmd2_kernel"

// OwnKernelNote is the legend and table text of a series measured in its
// own random-feature kernel.
const OwnKernelNote = "own RFF kernel"

// MMDFWSettings decodes an MMD-FW cell's recorded settings into the
// package's own type; ok is false for a cell of another kind (when the
// provenance names one) and for settings that do not decode. The recorded
// "start" is the wiring's start selector (map, prior, model, svgd), which
// is returned apart.
func MMDFWSettings(c *report.Cell) (s mmdfw.Settings, start string, ok bool) {
	if c.Prov == nil || (c.Prov.Kind != "" && !IsMMDFW(c.Prov.Kind)) {
		return s, "", false
	}
	b, err := json.Marshal(c.Prov.Settings)
	if err != nil {
		return s, "", false
	}
	var rec struct {
		Start string `json:"start"`
		mmdfw.Settings
	}
	if string(b) != "null" {
		if err := json.Unmarshal(b, &rec); err != nil {
			return s, "", false
		}
	}
	return rec.Settings, rec.Start, true
}

// IsRFF reports whether a method uses random Fourier features: an MMD-FW
// cell whose recorded settings select the "rff" kernel.
func IsRFF(c *report.Cell) bool {
	s, _, ok := MMDFWSettings(c)
	return ok && s.Kernel == mmdfw.RFFKernel
}

// LMODirection is the direction an MMD-FW cell's linear minimisation
// oracle follows, from the direction of its recorded settings: "exact"
// (the closed-form ∇μ_p, Gaussian targets only), or "self" or "frozen", the
// two readings of the paper's approximate, Stein-type direction. A cell that
// does not set it runs the method's default, "self".
func LMODirection(c *report.Cell) string {
	s, _, ok := MMDFWSettings(c)
	if !ok || s.Direction == mmdfw.DirectionAuto {
		return "self"
	}
	return string(s.Direction)
}

// IsExactLMO reports whether a cell's LMO follows the exact direction
// rather than the paper's approximation: such a series is a control of
// Frank-Wolfe's own rate, not the paper's algorithm.
func IsExactLMO(c *report.Cell) bool { return LMODirection(c) == "exact" }
