package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStaleReasonNamesTheChangedInputs(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	runExp(t, ty, dir, 2, base, "", false)
	r := NewRunner(ty.reg, Options{Results: dir, Log: quiet})
	status := func(text string) map[string]CellStatus {
		e, err := Load(ty.reg, "exp.toml", []byte(text), "")
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]CellStatus{}
		for _, c := range Cells(e) {
			st, err := r.Status(c)
			if err != nil {
				t.Fatal(err)
			}
			m[c.ID] = st
		}
		return m
	}
	for id, st := range status(base) {
		if st.Status != Done || st.StaleReason() != "" {
			t.Fatalf("%s: %s, reason %q", id, st.Status, st.StaleReason())
		}
	}
	edited := strings.Replace(base, "scale = 0.5", "scale = 0.75", 1)
	edited = strings.Replace(edited, "steps = 10", "steps = 9", 1)
	for id, st := range status(edited) {
		if !strings.Contains(id, "walk-a") {
			if st.Status != Stale || st.StaleReason() != "budget.steps 10 → 9" {
				t.Errorf("%s: %s, reason %q", id, st.Status, st.StaleReason())
			}
			continue
		}
		if want := "budget.steps 10 → 9; settings.Scale 0.5 → 0.75"; st.Status != Stale || st.StaleReason() != want {
			t.Errorf("%s: %s, reason %q, want %q", id, st.Status, st.StaleReason(), want)
		}
	}
	ty.mu.Lock()
	ty.checksum = "changed"
	ty.mu.Unlock()
	for id, st := range status(base) {
		if st.StaleReason() != "data.gauss.csv changed" || st.DataMissing() {
			t.Errorf("%s: reason %q", id, st.StaleReason())
		}
	}
}

func TestOrphans(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	runExp(t, ty, dir, 2, base, "", false)
	// A file of a split the experiment no longer has, a hidden artefact
	// and an unrelated file type.
	e, err := Load(ty.reg, "exp.toml", []byte(strings.Replace(base, "splits = [0, 1]", "splits = [0]", 1)), "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(ty.reg, Options{Results: dir, Log: quiet})
	if err := os.MkdirAll(filepath.Join(dir, "base", "toy", ".artefacts"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"base/toy/.artefacts/x.json", "base/toy/notes.txt", "base/other/walk-a/gauss/s0/n3.csv", "quick/toy/walk-a/gauss/s1/n3.csv"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := r.Orphans(Cells(e))
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, p := range got {
		q, _ := filepath.Rel(dir, p)
		rel = append(rel, filepath.ToSlash(q))
	}
	want := "base/toy/walk-a/gauss/s1/n3.csv base/toy/walk-a/gauss/s1/n3.json base/toy/walk-a/gauss/s1/n4.csv base/toy/walk-a/gauss/s1/n4.json base/toy/walk-b/gauss/s1.csv base/toy/walk-b/gauss/s1.json"
	if s := strings.Join(rel, " "); s != want {
		t.Errorf("orphans\n%s\nwant\n%s", s, want)
	}
	// With every split, nothing is an orphan.
	full, _ := Load(ty.reg, "exp.toml", []byte(base), "")
	if got, _ := r.Orphans(Cells(full)); len(got) != 0 {
		t.Errorf("orphans of the full experiment: %v", got)
	}
}
