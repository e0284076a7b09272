package experiment

import (
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
)

// Every metric the wiring registers, and every statistic MMD-FW reports,
// carries its meaning: a label in words (never the metric's name), the
// direction the report ranks it in, and what it reads.
func TestMetricMeanings(t *testing.T) {
	r := harness.NewRegistry()
	Register(r)
	if u := r.Undescribed(); len(u) > 0 {
		t.Errorf("metrics registered without a meaning (describe each with DescribeMetric where it is registered): %v", u)
	}
	want := map[string]struct {
		better harness.Direction
		log    bool
		reads  string
	}{
		Accuracy:    {harness.HigherBetter, false, harness.ReadsEvaluation},
		TestLL:      {harness.HigherBetter, false, harness.ReadsEvaluation},
		RMSE:        {harness.LowerBetter, false, harness.ReadsEvaluation},
		DevAccuracy: {harness.HigherBetter, false, harness.ReadsDevelopment},
		DevTestLL:   {harness.HigherBetter, false, harness.ReadsDevelopment},
		DevRMSE:     {harness.LowerBetter, false, harness.ReadsDevelopment},
		MMD2:        {harness.LowerBetter, true, harness.ReadsReference},
		FMMD2:       {harness.LowerBetter, true, harness.ReadsReference},
		MMD2Exact:   {harness.LowerBetter, true, harness.ReadsTarget},
		KSD2:        {harness.LowerBetter, true, harness.ReadsTarget},
		// The pool's estimate of MMD² may be negative: a linear axis.
		harness.StatPrefix + mmdfw.StatMMD2Kernel:     {harness.LowerBetter, true, harness.ReadsMethod},
		harness.StatPrefix + mmdfw.StatMMD2KernelPool: {harness.LowerBetter, false, harness.ReadsMethod},
	}
	tb := r.Meanings()
	for name, w := range want {
		m, err := tb.Meaning(name)
		if err != nil {
			t.Error(err)
			continue
		}
		if m.Better != w.better || m.Log != w.log || m.Reads != w.reads {
			t.Errorf("%s: %v, log %v, reads %s; want %v, log %v, reads %s", name, m.Better, m.Log, m.Reads, w.better, w.log, w.reads)
		}
		if l := m.AxisLabel(""); l == name || !strings.Contains(l, " ") || strings.Contains(l, "_") || strings.Contains(l, harness.RowsPlaceholder) {
			t.Errorf("%s: label %q is not in words", name, l)
		}
	}
	// The labels the committed figures show.
	for name, label := range map[string]string{
		Accuracy: "test accuracy", TestLL: "mean test log-likelihood (nats)", RMSE: "test RMSE (units of y)",
		MMD2: "MMD² to the HMC reference", MMD2Exact: "exact MMD² to the target",
	} {
		if m, _ := tb.Meaning(name); m.AxisLabel("") != label {
			t.Errorf("%s: label %q, want %q", name, m.AxisLabel(""), label)
		}
	}
	if m, _ := tb.Meaning(RMSE); m.AxisLabel(harness.RowsValidation) != "validation RMSE (units of y)" {
		t.Errorf("rmse on validation rows: %q", m.AxisLabel(harness.RowsValidation))
	}
	if m, _ := tb.Meaning(MMD2); m.LabelExact != "exact MMD² to the target" {
		t.Errorf("mmd2 on a closed-form reference: %q", m.LabelExact)
	}
}
