package metric

// CeilingFlagged reports whether a set that reached its size ceiling n
// before a KSD stop's target (MMD-FW's and Stein Points' Stop "ksd": the
// KSD² of Settings.KSDSize independent draws, 1,000 by default) is flagged
// "ceiling": when it is worse than n independent draws of the target in
// KSD², its ksdSize (the number of independent draws whose expected KSD²
// equals the set's, particle.Diagnostics value "ksd_size") below n. A set
// at its ceiling that is at least as good as n independent draws is what
// n points can give: at n far below the stop's target the ceiling is
// reached by n itself, and the run records it as a note, not a flag
// (docs/DECISIONS.md, "Flags that mean something"). A NaN ksdSize is
// flagged.
//
// On posteriordb's posteriors (seeds 100–102, N = 10) every MMD-FW set
// hits the ceiling; the sets below n draws' worth are 10 of 11 off the
// reference (an sd ratio below 0.5 or a mean error above 0.5 sd), those
// at or above it 2 of 16.
func CeilingFlagged(ksdSize float64, n int) bool { return !(ksdSize >= float64(n)) }
