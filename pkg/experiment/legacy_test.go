package experiment

import (
	"github.com/mmdfw/mmdfw/pkg/sampler"

	"testing"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/mmdfw/pools"
	"github.com/mmdfw/mmdfw/pkg/particle"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// A settings table that is silent on the new keys runs the methods as the
// committed results were made; one that names them keeps them.
func TestLegacySettings(t *testing.T) {
	var v svgd.Settings
	legacySVGD(&v)
	if v.Whiten != svgd.WhitenNone || v.Stop != svgd.StopFixed || v.StepSize != 1e-3 || v.Iterations != 1000 {
		t.Errorf("svgd: %+v", v)
	}
	v = svgd.Settings{Frame: sampler.Frame{Whiten: svgd.WhitenLaplace, Stop: svgd.StopPlateau}}
	legacySVGD(&v)
	if v.StepSize != 0 || v.Iterations != 0 {
		t.Errorf("svgd opting in: step %v, iterations %v, want the package's defaults (0)", v.StepSize, v.Iterations)
	}

	var g sgld.Settings
	legacySGLD(&g)
	if g.Whiten != sgld.WhitenNone || g.Stop != sgld.StopFixed || g.Schedule != sgld.SchedulePolynomial || g.Iterations != 10000 || g.A != 0 {
		t.Errorf("sgld: %+v", g)
	}
	// Refused as before: a constant schedule without a step.
	if err := (SGLDConfig{Settings: sgld.Settings{Schedule: sgld.ScheduleConstant}}).Validate(); err == nil {
		t.Error("sgld: a constant schedule without a accepted")
	}
	if err := (SGLDConfig{Settings: sgld.Settings{Schedule: sgld.ScheduleConstant, Frame: sampler.Frame{Whiten: sgld.WhitenLaplace}}}).Validate(); err != nil {
		t.Errorf("sgld: whitened constant schedule: %v", err)
	}

	var p sp.Settings
	legacySP(&p)
	if p.Whiten != sp.WhitenNone || p.Stop != sp.StopFixed || p.N != 100 {
		t.Errorf("sp: %+v", p)
	}

	for _, c := range []struct {
		start mmdfw.First
		want  mmdfw.Scale
	}{{mmdfw.FirstGiven, mmdfw.ScaleBandwidth}, {mmdfw.FirstTrained, mmdfw.ScaleGiven}, {mmdfw.FirstAuto, mmdfw.ScaleBandwidth}} {
		m := mmdfw.Settings{Candidates: mmdfw.Candidates{First: c.start}, N: 200}
		legacyMMDFW(&m, particle.Start{}, mmdfw.Inputs{})
		if m.Scale != c.want || m.Stop != mmdfw.StopFixed || m.N != 200 || m.CandidateInit != mmdfw.InitPerturb {
			t.Errorf("mmdfw start %v: scale %v, stop %q, n %d, init %v", c.start, m.Scale, m.Stop, m.N, m.CandidateInit)
		}
	}
	// The candidates of a file silent on init: perturbed particles, or the
	// SVGD particles' rows when there are SVGD particles; a named init stays.
	for _, c := range []struct {
		s    mmdfw.Settings
		in   mmdfw.Inputs
		want mmdfw.Init
	}{{mmdfw.Settings{}, mmdfw.Inputs{SVGD: pools.SVGD(particle.Start{}, svgd.Settings{})}, mmdfw.InitAuto},
		{mmdfw.Settings{Candidates: mmdfw.Candidates{CandidateInit: mmdfw.InitPrior}}, mmdfw.Inputs{}, mmdfw.InitPrior},
		{mmdfw.Settings{Candidates: mmdfw.Candidates{CandidateInit: mmdfw.InitLaplace}}, mmdfw.Inputs{}, mmdfw.InitLaplace}} {
		legacyMMDFW(&c.s, particle.Start{}, c.in)
		if c.s.CandidateInit != c.want || c.s.Starts != 1 {
			t.Errorf("mmdfw: init %v, %d starts, want %v, 1", c.s.CandidateInit, c.s.Starts, c.want)
		}
	}
	m := mmdfw.Settings{Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace}}
	legacyMMDFW(&m, particle.Start{}, mmdfw.Inputs{})
	if m.Scale != mmdfw.ScaleLaplace || m.N != mmdfw.DefaultN {
		t.Errorf("mmdfw: scale %v, n %d", m.Scale, m.N)
	}
}
