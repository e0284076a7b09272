package harness

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// DescribeMetric refuses a meaning the report could not use, a name that
// is neither a registered metric nor a method's statistic, a statistic
// that claims to read rows, and a second description.
func TestDescribeMetricRefuses(t *testing.T) {
	newReg := func() *Registry {
		r := NewRegistry()
		r.RegisterMetric("rmse", func(context.Context, *Problem, *Env) (Metric, error) { return nil, nil })
		return r
	}
	good := MetricMeaning{Label: "{rows} RMSE", Better: LowerBetter, Reads: ReadsEvaluation}
	for _, c := range []struct {
		name, metric string
		m            MetricMeaning
		want         string
	}{
		{"no label", "rmse", MetricMeaning{Better: LowerBetter, Reads: ReadsEvaluation}, "no label"},
		{"no direction", "rmse", MetricMeaning{Label: "RMSE", Reads: ReadsEvaluation}, "not HigherBetter, LowerBetter or NearerBetter"},
		{"unknown reads", "rmse", MetricMeaning{Label: "RMSE", Better: LowerBetter, Reads: "test"}, `reads "test" is not one of`},
		{"rows in a reference label", "rmse", MetricMeaning{Label: "{rows} MMD²", Better: LowerBetter, Reads: ReadsReference}, "names evaluation rows"},
		{"exact label off the reference", "rmse", MetricMeaning{Label: "RMSE", LabelExact: "exact", Better: LowerBetter, Reads: ReadsEvaluation}, "exact label"},
		{"ideal not finite", "rmse", MetricMeaning{Label: "RMSE", Better: NearerBetter, Ideal: math.Inf(1), Reads: ReadsEvaluation}, "ideal +Inf is not finite"},
		{"ideal without NearerBetter", "rmse", MetricMeaning{Label: "RMSE", Better: LowerBetter, Ideal: 1, Reads: ReadsEvaluation}, "an ideal value is for a NearerBetter metric"},
		{"fraction without HigherBetter", "rmse", MetricMeaning{Label: "RMSE", Better: LowerBetter, Fraction: true, Reads: ReadsEvaluation}, "a fraction is for a HigherBetter metric"},
		{"unregistered", "r2", good, "unregistered metric r2"},
		{"statistic reading rows", StatPrefix + "spread", good, "reads method, not evaluation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), c.want) || !strings.HasPrefix(fmt.Sprint(r), "harness: ") {
					t.Errorf("panic %v, want one naming %q", r, c.want)
				}
			}()
			newReg().DescribeMetric(c.metric, c.m)
		})
	}
	r := newReg()
	if u := r.Undescribed(); len(u) != 1 || u[0] != "rmse" {
		t.Errorf("Undescribed = %v, want [rmse]", u)
	}
	r.DescribeMetric("rmse", good)
	if u := r.Undescribed(); len(u) != 0 {
		t.Errorf("Undescribed = %v after DescribeMetric", u)
	}
	func() {
		defer func() {
			if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "described twice") {
				t.Errorf("a second description: panic %v", p)
			}
		}()
		r.DescribeMetric("rmse", good)
	}()
	// Meanings is the caller's copy.
	tb := r.Meanings()
	delete(tb, "rmse")
	if m, ok := r.Meaning("rmse"); !ok || m.AxisLabel(RowsDevelopment) != "development RMSE" || m.AxisLabel(RowsDevelopmentTest) != "test RMSE" {
		t.Errorf("Meaning(rmse) = %+v, %v after the copy was changed", m, ok)
	}
}

// Beats ranks in the metric's direction; nothing beats or is beaten by
// NaN.
func TestBeats(t *testing.T) {
	hi := MetricMeaning{Better: HigherBetter}
	lo := MetricMeaning{Better: LowerBetter}
	near := MetricMeaning{Better: NearerBetter, Ideal: 1}
	nan := math.NaN()
	for _, c := range []struct {
		m    MetricMeaning
		a, b float64
		want bool
	}{
		{hi, 0.9, 0.8, true}, {hi, 0.8, 0.9, false}, {hi, 0.8, 0.8, false},
		{lo, 0.8, 0.9, true}, {lo, 0.9, 0.8, false},
		{near, 1.1, 0.8, true}, {near, 0.95, 1.1, true}, {near, 1.3, 0.8, false}, {near, 0.75, 1.25, false},
		{hi, nan, 0.8, false}, {lo, nan, 0.8, false}, {near, nan, 0.8, false}, {near, 0.8, nan, false},
	} {
		if got := c.m.Beats(c.a, c.b); got != c.want {
			t.Errorf("%v (ideal %v): Beats(%v, %v) = %v, want %v", c.m.Better, c.m.Ideal, c.a, c.b, got, c.want)
		}
	}
}
