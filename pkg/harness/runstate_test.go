package harness

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// One Runner serves two calls of Run at once: each call keeps its own
// logger, bars and reference times, so that neither sees the other's.
func TestConcurrentRunsKeepTheirOwnState(t *testing.T) {
	ty := newToy()
	slowRef := strings.Replace(refText, "settings = { steps = 30 }", "settings = { steps = 30, delay_ms = 5 }", 1)
	refExp, err := Load(ty.reg, "ref.toml", []byte(slowRef), "")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Load(ty.reg, "plain.toml", []byte(strings.Replace(base, `id = "toy"`, `id = "plain"`, 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(ty.reg, Options{Results: t.TempDir(), Jobs: 2, Log: quiet})
	var (
		wg         sync.WaitGroup
		withRef    *Summary
		withoutRef *Summary
		errs       [2]error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		withRef, errs[0] = r.Run(context.Background(), Plan([]*Experiment{refExp}))
	}()
	go func() {
		defer wg.Done()
		withoutRef, errs[1] = r.Run(context.Background(), Plan([]*Experiment{plain}))
	}()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if withRef.Done != withRef.Total || withoutRef.Done != withoutRef.Total {
		t.Fatalf("summaries %v and %v", withRef, withoutRef)
	}
	if len(withRef.Time.References) != 2 {
		t.Errorf("the run with references timed %d of them, want 2: %v", len(withRef.Time.References), withRef.Time.References)
	}
	if len(withoutRef.Time.References) != 0 {
		t.Errorf("the run without references timed %v", withoutRef.Time.References)
	}
}
