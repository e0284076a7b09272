package harness_test

import (
	"context"
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// A metric is described where it is registered: the report labels, ranks
// and draws it by this meaning, never by its name. A statistic a method
// reports itself (StatPrefix) is described the same way.
func ExampleRegistry_DescribeMetric() {
	reg := harness.NewRegistry()
	reg.RegisterMetric("coverage", func(ctx context.Context, p *harness.Problem, env *harness.Env) (harness.Metric, error) {
		return func(s particle.Snapshot) float64 { return 0.9 }, nil
	})
	reg.DescribeMetric("coverage", harness.MetricMeaning{
		Label:  "90% interval coverage on {rows} rows",
		Better: harness.HigherBetter,
		Reads:  harness.ReadsEvaluation,
	})
	reg.DescribeMetric(harness.StatPrefix+"spread", harness.MetricMeaning{
		Label:  "particle spread (method-reported)",
		Better: harness.LowerBetter,
		Log:    true,
		Reads:  harness.ReadsMethod,
	})
	t := reg.Meanings()
	m, _ := t.Meaning("coverage")
	fmt.Println(m.AxisLabel(""), "|", m.AxisLabel(harness.RowsValidation), "|", m.Better)
	s, _ := t.Meaning("method:spread")
	fmt.Println(s.AxisLabel(""), "| log axis:", s.Log)
	_, err := t.Meaning("r2")
	fmt.Println(err)
	// Output:
	// 90% interval coverage on test rows | 90% interval coverage on validation rows | higher is better
	// particle spread (method-reported) | log axis: true
	// metric "r2" has no registered meaning (Registry.DescribeMetric)
}
