package hmc

// Phase is the stage of a chain: warm-up (adaptation) or sampling.
type Phase int

// The phases of a chain.
const (
	PhaseWarmup Phase = iota
	PhaseSampling
)

// String returns "warm-up" or "sampling".
func (p Phase) String() string {
	if p == PhaseWarmup {
		return "warm-up"
	}
	return "sampling"
}

// ChainProgress is the state of one chain after a transition, as given to
// Settings.Progress.
type ChainProgress struct {
	// Chain is the chain's index.
	Chain int
	// Phase is the phase of the transition just done; Iteration counts the
	// iterations done in it (1 after the first) out of Total.
	Phase            Phase
	Iteration, Total int
	// StepSize is the step size ε the next transition uses.
	StepSize float64
	// AcceptRate is the mean acceptance statistic of the phase: in warm-up,
	// since the last restart of dual averaging (which drives it to
	// TargetAccept); in sampling, of all sampling transitions.
	AcceptRate float64
	// Divergences counts the divergent transitions of the phase.
	Divergences int
	// Done and Remaining count the chain's iterations, warm-up and
	// sampling together, done and still to do, for an ETA.
	Done, Remaining int
}

// progress reports the chain's state after iteration c.it − 1.
func (c *chain) progress() ChainProgress {
	w := c.s.Warmup
	p := ChainProgress{Chain: c.id, StepSize: c.eps, Done: c.it, Remaining: w + c.s.DrawsPerChain - c.it}
	if c.it <= w {
		p.Phase, p.Iteration, p.Total = PhaseWarmup, c.it, w
		p.AcceptRate = c.adaptSum / float64(c.adaptN)
		p.Divergences = c.warmDivergent
		return p
	}
	p.Phase, p.Iteration, p.Total = PhaseSampling, c.it-w, c.s.DrawsPerChain
	p.AcceptRate = c.acceptSum / float64(c.nSample)
	p.Divergences = c.divergent
	return p
}
