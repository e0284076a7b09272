package harness

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// The checks that did not run and the notes round-trip through the
// provenance JSON; a record without them (as written before they existed)
// reads with none, and a set that only lists an unchecked check is
// recorded.
func TestDiagnosticsUncheckedJSON(t *testing.T) {
	var d particle.Diagnostics
	d.Skip("stein", "no full-data scores of the set: its %d particles are fewer than the %d", 10, 20)
	d.Note("ceiling", "at its ceiling, no worse than %d independent draws", 10)
	r := recordDiagnostics(d)
	if r == nil || r.Checked() || len(r.Unchecked) != 1 || r.Unchecked[0].Code != "stein" || len(r.Notes) != 1 || r.Flagged() {
		t.Fatalf("record %+v", r)
	}
	b, err := json.Marshal(&Provenance{Cell: "c", Diagnostics: r})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"unchecked":[{"code":"stein","reason":"no full-data scores of the set: its 10 particles are fewer than the 20"}]`) ||
		!strings.Contains(string(b), `"notes":[{"code":"ceiling",`) {
		t.Errorf("JSON %s", b)
	}
	var back Provenance
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Diagnostics, r) {
		t.Errorf("read back %+v, want %+v", back.Diagnostics, r)
	}

	old := `{"cell":"c","diagnostics":{"values":{"kish_ess":10},"flags":[{"code":"ceiling","reason":"r"}]}}`
	var p Provenance
	if err := json.Unmarshal([]byte(old), &p); err != nil {
		t.Fatal(err)
	}
	if p.Diagnostics.Unchecked != nil || p.Diagnostics.Notes != nil || !p.Diagnostics.Checked() {
		t.Errorf("old record read as %+v", p.Diagnostics)
	}
	if b, _ := json.Marshal(p.Diagnostics); strings.Contains(string(b), "unchecked") || strings.Contains(string(b), "notes") {
		t.Errorf("old record written back as %s", b)
	}
}
