package report

// ForestRow is one line of a forest plot: a data set's paired contrast
// (Est with its interval [Lo, Hi]) or the pooled estimate; Note, when
// set, says why the row is excluded or not drawn.
type ForestRow struct {
	Label       string
	Est, Lo, Hi float64
	N           int
	Note        string
}

// Forest describes a forest plot of one claim under one protocol: the
// per-data-set contrasts, the pooled estimate drawn as a diamond, the
// no-effect line at Null and the margin band [Band[0], Band[1]] (no band
// when both are zero); Log draws the x axis on a log scale (ratios).
type Forest struct {
	Title, XLabel string
	Log           bool
	Null          float64
	Band          [2]float64
	Rows          []ForestRow
	Pooled        *ForestRow
}
