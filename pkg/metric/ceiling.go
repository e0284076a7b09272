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
// On posteriordb's posteriors (nine of them, seeds 100–108, which no
// report reads) the sets of MMD-FW below their size in KSD² are off the
// reference (an sd ratio outside [0.5, 2] or a mean error above 0.5 sd)
// on 33 of 35 at N = 10 and 17 of 17 at N = 30 and 100, those at or above
// it on 6 of 46 at N = 10 and 1 of 145 at N = 30 and 100.
func CeilingFlagged(ksdSize float64, n int) bool { return !(ksdSize >= float64(n)) }
