package harness

import (
	"context"
	"fmt"
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
		{"no direction", "rmse", MetricMeaning{Label: "RMSE", Reads: ReadsEvaluation}, "neither HigherBetter nor LowerBetter"},
		{"unknown reads", "rmse", MetricMeaning{Label: "RMSE", Better: LowerBetter, Reads: "test"}, `reads "test" is not one of`},
		{"rows in a reference label", "rmse", MetricMeaning{Label: "{rows} MMD²", Better: LowerBetter, Reads: ReadsReference}, "names evaluation rows"},
		{"exact label off the reference", "rmse", MetricMeaning{Label: "RMSE", LabelExact: "exact", Better: LowerBetter, Reads: ReadsEvaluation}, "exact label"},
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
