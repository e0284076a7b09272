package svgd_test

import (
	"testing"

	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// TestBatchNegative: FullBatch is the only negative Batch; any other
// is a *setting.Error naming batch.
func TestBatchNegative(t *testing.T) {
	if err := (svgd.Settings{Batch: svgd.FullBatch}).Validate(); err != nil {
		t.Errorf("FullBatch: %v", err)
	}
	for _, b := range []int{-2, -100} {
		e, ok := setting.As(svgd.Settings{Batch: b}.Validate())
		if !ok || e.Field != "batch" {
			t.Errorf("batch %d: error %v, want one naming batch", b, e)
		}
	}
}
