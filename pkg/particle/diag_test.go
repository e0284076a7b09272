package particle

import (
	"errors"
	"testing"
)

func TestDiagnostics(t *testing.T) {
	var d Diagnostics
	if d.Flagged() || d.Reason() != "" || len(d.Names()) != 0 {
		t.Fatalf("zero value: flagged %v, reason %q, names %v", d.Flagged(), d.Reason(), d.Names())
	}
	d.Set("kish_ess", 6.6)
	d.Set("ksd2", 0.5)
	d.Raise("collapse", "%.0f%% of the weight within %.2g of one point", 90.0, 0.1)
	d.Raise("ceiling", "%d iterations without meeting the criterion", 1000)
	if !d.Flagged() {
		t.Fatal("not flagged after Raise")
	}
	if got, want := d.Reason(), "collapse: 90% of the weight within 0.1 of one point; ceiling: 1000 iterations without meeting the criterion"; got != want {
		t.Errorf("Reason = %q, want %q", got, want)
	}
	if got := d.Names(); len(got) != 2 || got[0] != "kish_ess" || got[1] != "ksd2" {
		t.Errorf("Names = %v", got)
	}
	s := Set{Diag: d}
	if err := Strict("svgd", s, false); err != nil {
		t.Errorf("Strict(false) = %v", err)
	}
	err := Strict("svgd", s, true)
	var fe *FlaggedError
	if !errors.As(err, &fe) || !errors.Is(err, ErrFlagged) || fe.Method != "svgd" {
		t.Fatalf("Strict(true) = %v", err)
	}
	if err := Strict("svgd", Set{}, true); err != nil {
		t.Errorf("Strict on an unflagged set = %v", err)
	}
}
