package harness

import (
	"fmt"
	"maps"
	"math"
	"sort"
	"strings"
)

// Direction says which way a metric improves.
type Direction int8

// Directions of MetricMeaning.Better. The zero Direction is none, which
// DescribeMetric refuses.
const (
	// HigherBetter: a larger value is better (an accuracy, a
	// log-likelihood).
	HigherBetter Direction = 1
	// LowerBetter: a smaller value is better (an error, a discrepancy).
	LowerBetter Direction = -1
	// NearerBetter: a value nearer MetricMeaning.Ideal is better (a ratio
	// of spreads, best at 1).
	NearerBetter Direction = 2
)

// String is "higher is better", "lower is better" or "nearer the ideal is
// better".
func (d Direction) String() string {
	switch d {
	case HigherBetter:
		return "higher is better"
	case LowerBetter:
		return "lower is better"
	case NearerBetter:
		return "nearer the ideal is better"
	}
	return fmt.Sprintf("Direction(%d)", int8(d))
}

// What a metric reads (MetricMeaning.Reads).
const (
	// ReadsEvaluation: the rows eval.rows names, the split's test rows
	// unless the experiment carves validation or development rows from
	// the training rows (RowsValidation, RowsDevelopment).
	ReadsEvaluation = "evaluation"
	// ReadsDevelopment: the development rows that eval.rows =
	// "development+test" holds out beside the test rows.
	ReadsDevelopment = "development"
	// ReadsReference: the experiment's reference draws (an HMC sample),
	// or the target's closed form where the dataset has one.
	ReadsReference = "reference"
	// ReadsTarget: the posterior itself (its closed form, or its scores
	// over the training rows the method sees); no held-out row.
	ReadsTarget = "target"
	// ReadsMethod: the method's own state; a statistic it reports about
	// its snapshot (StatPrefix).
	ReadsMethod = "method"
)

// RowsPlaceholder stands, in the label of a metric that reads the
// evaluation rows, for the word that names them (AxisLabel).
const RowsPlaceholder = "{rows}"

// MetricMeaning is what the values of a metric mean: how the report
// labels, ranks and draws them. A registered metric, and a statistic a
// method reports, carries one (DescribeMetric); the report never guesses
// it from the metric's name.
type MetricMeaning struct {
	// Label is the metric in words, as an axis shows it: "{rows} RMSE
	// (units of y)". In the label of a metric that reads the evaluation
	// rows, RowsPlaceholder stands for the word that names them (test,
	// validation or development: AxisLabel).
	Label string
	// LabelExact, when set, is the label of a metric that reads the
	// reference on a dataset whose reference is the target's closed
	// form, where the metric is computed exactly ("exact MMD² to the
	// target" for "MMD² to the HMC reference").
	LabelExact string
	// Better says which way the metric improves: HigherBetter,
	// LowerBetter, or NearerBetter (towards Ideal).
	Better Direction
	// Ideal is the best value of a NearerBetter metric (1 for a ratio of
	// spreads); unused otherwise.
	Ideal float64
	// Fraction marks a HigherBetter metric that is a fraction of rows, at
	// most 1 (an accuracy): a rule that relaxes a value by a fraction of
	// its error relaxes its complement 1 − value, the error rate, rather
	// than the value itself.
	Fraction bool
	// Log draws the metric on a logarithmic axis unless a figure says
	// otherwise (log_y), with geometric means over splits: a squared
	// discrepancy that spans decades. A quantity that may be negative (an
	// estimate of a squared distance, say) is drawn linear.
	Log bool
	// Reads says what the metric reads: ReadsEvaluation,
	// ReadsDevelopment, ReadsReference, ReadsTarget or ReadsMethod.
	Reads string
}

// AxisLabel returns the label of the metric in an experiment whose
// eval.rows is rows ("" for the test rows): Label with RowsPlaceholder
// replaced by "test", "validation" or "development".
func (m MetricMeaning) AxisLabel(rows string) string {
	if !strings.Contains(m.Label, RowsPlaceholder) {
		return m.Label
	}
	word := RowsTest
	switch rows {
	case RowsValidation, RowsDevelopment:
		word = rows
	}
	return strings.ReplaceAll(m.Label, RowsPlaceholder, word)
}

// Beats reports whether the value a is strictly better than b in the
// metric's direction. A value that is not a number beats nothing.
func (m MetricMeaning) Beats(a, b float64) bool {
	switch m.Better {
	case HigherBetter:
		return a > b
	case LowerBetter:
		return a < b
	case NearerBetter:
		return math.Abs(a-m.Ideal) < math.Abs(b-m.Ideal)
	}
	return false
}

// check returns what is wrong with m, nil when nothing is.
func (m MetricMeaning) check() error {
	switch {
	case strings.TrimSpace(m.Label) == "":
		return fmt.Errorf("no label")
	case m.Better != HigherBetter && m.Better != LowerBetter && m.Better != NearerBetter:
		return fmt.Errorf("direction %v is not HigherBetter, LowerBetter or NearerBetter", m.Better)
	case math.IsNaN(m.Ideal) || math.IsInf(m.Ideal, 0):
		return fmt.Errorf("ideal %v is not finite", m.Ideal)
	case m.Ideal != 0 && m.Better != NearerBetter:
		return fmt.Errorf("an ideal value is for a NearerBetter metric, not one where %v", m.Better)
	case m.Fraction && m.Better != HigherBetter:
		return fmt.Errorf("a fraction is for a HigherBetter metric, not one where %v", m.Better)
	}
	switch m.Reads {
	case ReadsEvaluation:
	case ReadsDevelopment, ReadsReference, ReadsTarget, ReadsMethod:
		if strings.Contains(m.Label, RowsPlaceholder) {
			return fmt.Errorf("label %q names evaluation rows, but the metric reads %s", m.Label, m.Reads)
		}
	default:
		return fmt.Errorf("reads %q is not one of %q", m.Reads,
			[]string{ReadsEvaluation, ReadsDevelopment, ReadsReference, ReadsTarget, ReadsMethod})
	}
	if m.LabelExact != "" && m.Reads != ReadsReference {
		return fmt.Errorf("an exact label is for a metric that reads the reference, not %s", m.Reads)
	}
	return nil
}

// MetricTable maps metric names, and the names of method statistics
// (StatPrefix + key), to their meanings: what the report reads from the
// registry that planned the results it draws.
type MetricTable map[string]MetricMeaning

// Meaning returns the meaning of metric name, or an error naming it when
// the table has none.
func (t MetricTable) Meaning(name string) (MetricMeaning, error) {
	if m, ok := t[name]; ok {
		return m, nil
	}
	return MetricMeaning{}, fmt.Errorf("metric %q has no registered meaning (Registry.DescribeMetric)", name)
}

// DescribeMetric records what metric name means. name is a metric
// registered on r (RegisterMetric) or a statistic that a method reports
// itself (StatPrefix + key). A meaning without a label or a direction, with
// an unknown Reads, for a name that is neither, or a second description of
// a name panics.
func (r *Registry) DescribeMetric(name string, m MetricMeaning) {
	if err := m.check(); err != nil {
		panic("harness: meaning of metric " + name + ": " + err.Error())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, registered := r.metrics[name]
	stat := strings.HasPrefix(name, StatPrefix) && len(name) > len(StatPrefix)
	if !registered && !stat {
		panic("harness: meaning of unregistered metric " + name)
	}
	if stat && m.Reads != ReadsMethod {
		panic("harness: method statistic " + name + " reads " + ReadsMethod + ", not " + m.Reads)
	}
	if _, dup := r.meanings[name]; dup {
		panic("harness: metric " + name + " described twice")
	}
	if r.meanings == nil {
		r.meanings = MetricTable{}
	}
	r.meanings[name] = m
}

// Meaning returns what metric name means, false when nothing describes it.
func (r *Registry) Meaning(name string) (MetricMeaning, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.meanings[name]
	return m, ok
}

// Meanings returns every meaning r holds, in a table of the caller's.
func (r *Registry) Meanings() MetricTable {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(MetricTable, len(r.meanings))
	maps.Copy(out, r.meanings)
	return out
}

// Undescribed returns, sorted, the metrics registered on r that no
// DescribeMetric describes.
func (r *Registry) Undescribed() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for n := range r.metrics {
		if _, ok := r.meanings[n]; !ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
