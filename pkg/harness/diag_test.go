package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// judgeSettings are the settings of the toy method "judge": the random
// walk of "walk", whose returned set carries diagnostics.
type judgeSettings struct {
	walkSettings
	// Collapse raises the flag "collapse" when the particles' spread is
	// below it.
	Collapse float64 `toml:"collapse"`
}

// registerJudge adds the method kind "judge" to ty: it records the spread
// of its particles (the mean over coordinates of the weighted sd), the
// Kish ESS of its weights and a value that is not finite, and flags a
// spread below Collapse. registerSilentJudge adds the same method as it
// was before it said anything (the same kind, version and settings).
func registerJudge(ty *toy)       { registerJudgeSaying(ty, true) }
func registerSilentJudge(ty *toy) { registerJudgeSaying(ty, false) }

func registerJudgeSaying(ty *toy, say bool) {
	RegisterMethod(ty.reg, "judge", "1", func(ctx context.Context, in Input[judgeSettings]) (Output, error) {
		ty.runs.Add(1)
		set, err := walk(ctx, in.Problem.Target, in.Settings.walkSettings, in.N, in.Src, in.Recorder)
		if err != nil || !say {
			return Output{Set: set}, err
		}
		cov := set.Cov(nil)
		r, _ := cov.Dims()
		var spread float64
		for j := range r {
			spread += math.Sqrt(cov.At(j, j)) / float64(r)
		}
		set.Diag.Set("spread", spread)
		set.Diag.Set("kish_ess", set.ESS())
		set.Diag.Set("ratio", math.Inf(1))
		if spread < in.Settings.Collapse {
			set.Diag.Raise("collapse", "spread %.3g < %g", spread, in.Settings.Collapse)
		}
		return Output{Set: set}, nil
	})
}

// judgeText runs judge twice per split: once with a collapse threshold
// that every spread is below (flagged), once with none (values only); and
// walk, which says nothing.
const judgeText = `id = "judge"
seed = 3
datasets = ["gauss"]
splits = [0, 1]
[eval]
metrics = ["mean0"]
[methods.suspect]
kind = "judge"
particles = [4]
settings = { steps = 5, collapse = 100.0 }
[methods.fine]
kind = "judge"
particles = [4]
settings = { steps = 5 }
[methods.plain]
kind = "walk"
particles = [4]
settings = { steps = 5 }
`

func runJudge(t *testing.T, ty *toy, dir string, opt Options) *Summary {
	t.Helper()
	e, err := Load(ty.reg, "judge.toml", []byte(judgeText), "")
	if err != nil {
		t.Fatal(err)
	}
	opt.Results, opt.Jobs, opt.Log = dir, 2, quiet
	s, err := NewRunner(ty.reg, opt).Run(context.Background(), Plan([]*Experiment{e}))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rawProvenance reads a provenance file as JSON.
func rawProvenance(t *testing.T, dir, id string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(dir + "/base/" + id + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The provenance records the returned set's diagnostics (values, a value
// that is not finite, flags) when there are any, and no key otherwise; a
// flagged result is done, and the summary names it.
func TestProvenanceRecordsDiagnostics(t *testing.T) {
	ty := newToy()
	registerJudge(ty)
	dir := t.TempDir()
	s := runJudge(t, ty, dir, Options{})
	if s.Done != 6 || s.Failed != 0 {
		t.Fatalf("summary %v", s)
	}
	if len(s.Flagged) != 2 || !strings.HasPrefix(s.Flagged[0], "judge/suspect/gauss/s0/n4: collapse: spread ") ||
		!strings.Contains(s.String(), "\n  flagged: judge/suspect/gauss/s1/n4: collapse: spread ") {
		t.Errorf("flagged %q; summary\n%s", s.Flagged, s)
	}
	provs := provenances(t, dir)
	for id, p := range provs {
		d := p.Diagnostics
		switch {
		case strings.Contains(id, "/suspect/"):
			if !d.Flagged() || d.Flags[0].Code != "collapse" || !strings.HasPrefix(d.Reason(), "collapse: spread ") ||
				!(float64(d.Values["spread"]) > 0) || float64(d.Values["kish_ess"]) != 4 || !math.IsInf(float64(d.Values["ratio"]), 1) {
				t.Errorf("%s: diagnostics %+v", id, d)
			}
			if p.Status != Done {
				t.Errorf("%s: a flagged result is %s without --strict", id, p.Status)
			}
		case strings.Contains(id, "/fine/"):
			if d == nil || d.Flagged() || len(d.Values) != 3 {
				t.Errorf("%s: diagnostics %+v, want three values and no flag", id, d)
			}
		default:
			if d != nil {
				t.Errorf("%s: a method that says nothing recorded %+v", id, d)
			}
		}
	}
	// The JSON as written: the diagnostics key only where there is
	// something to say, the infinite value as a string, the flag with its
	// code and reason.
	m := rawProvenance(t, dir, "judge/suspect/gauss/s0/n4")
	dj, _ := json.Marshal(m["diagnostics"])
	if !strings.Contains(string(dj), `"ratio":"+Inf"`) || !strings.Contains(string(dj), `"flags":[{"code":"collapse","reason":"spread `) {
		t.Errorf("diagnostics JSON %s", dj)
	}
	if _, ok := rawProvenance(t, dir, "judge/plain/gauss/s0/n4")["diagnostics"]; ok {
		t.Error("a cell without diagnostics wrote the key")
	}
}

// Diagnostics enter no cache key: results of a method that said nothing
// stay current when the same method (kind, version, settings) starts
// saying something, and no key document names them.
func TestDiagnosticsEnterNoKey(t *testing.T) {
	dir := t.TempDir()
	silent := newToy()
	registerSilentJudge(silent)
	if s := runJudge(t, silent, dir, Options{}); s.Done != 6 || len(s.Flagged) != 0 {
		t.Fatalf("silent run: %v", s)
	}
	before := provenances(t, dir)
	saying := newToy()
	registerJudge(saying)
	e, err := Load(saying.reg, "judge.toml", []byte(judgeText), "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(saying.reg, Options{Results: dir, Jobs: 1, Log: quiet})
	for _, c := range Plan([]*Experiment{e}) {
		st, err := r.Status(c)
		if err != nil || st.Status != Done || st.Key != before[c.ID].Key {
			t.Errorf("%s: %v, %s, key %s (was %s)", c.ID, err, st.Status, st.Key, before[c.ID].Key)
		}
	}
	if s := runJudge(t, saying, dir, Options{}); s.Cached != 6 || saying.runs.Load() != 0 {
		t.Errorf("run of the method that now says something: %v, %d runs", s, saying.runs.Load())
	}
	// Computed afresh (--force), the results carry their diagnostics
	// under the same keys, whose documents do not name them.
	if s := runJudge(t, saying, dir, Options{Force: true}); s.Done != 6 || len(s.Flagged) != 2 {
		t.Fatalf("forced run: %v", s)
	}
	for id, p := range provenances(t, dir) {
		if p.Key != before[id].Key {
			t.Errorf("%s: key %s, %s before", id, p.Key, before[id].Key)
		}
		if b, _ := json.Marshal(p.KeyDoc); strings.Contains(string(b), "diag") || strings.Contains(string(b), "spread") {
			t.Errorf("%s: key document names the diagnostics: %s", id, b)
		}
	}
}

// Under Strict a flagged result fails its cell, with the reason in the
// error and the diagnostics in the provenance; the others are done. On the
// results of a run that was not strict, a strict run recomputes nothing
// and counts the cached flagged results as failed.
func TestStrictFailsFlaggedResults(t *testing.T) {
	ty := newToy()
	registerJudge(ty)
	dir := t.TempDir()
	s := runJudge(t, ty, dir, Options{Strict: true})
	if s.Done != 4 || s.Failed != 2 || s.Err() == nil {
		t.Fatalf("strict summary %v", s)
	}
	for _, f := range s.Failures {
		if !strings.Contains(f, "suspect: result flagged: collapse: spread ") {
			t.Errorf("failure %q lacks the reason", f)
		}
	}
	for id, p := range provenances(t, dir) {
		if strings.Contains(id, "/suspect/") {
			if p.Status != Failed || !strings.HasPrefix(p.Error, "suspect: result flagged: collapse: spread ") || !p.Diagnostics.Flagged() {
				t.Errorf("%s: %s %q %+v", id, p.Status, p.Error, p.Diagnostics)
			}
		} else if p.Status != Done {
			t.Errorf("%s: %s %q", id, p.Status, p.Error)
		}
	}
	// The error of a strict cell is a particle.FlaggedError's.
	var fe *particle.FlaggedError
	if err := particle.Strict("suspect", particle.Set{Diag: particle.Diagnostics{Flags: []particle.Flag{{Code: "c", Reason: "r"}}}}, true); !errors.As(err, &fe) || err.Error() != "suspect: result flagged: c: r" {
		t.Errorf("particle.Strict: %v", err)
	}

	// Not strict, then strict over the same results.
	ty = newToy()
	registerJudge(ty)
	dir = t.TempDir()
	if s := runJudge(t, ty, dir, Options{}); s.Done != 6 {
		t.Fatalf("summary %v", s)
	}
	runs := ty.runs.Load()
	s = runJudge(t, ty, dir, Options{Strict: true})
	if ty.runs.Load() != runs {
		t.Errorf("the strict run recomputed %d cells", ty.runs.Load()-runs)
	}
	if s.Failed != 2 || s.Done != 4 || s.Cached != 4 || len(s.Flagged) != 2 || s.Err() == nil {
		t.Errorf("strict over cached results: %v (cached %d)", s, s.Cached)
	}
	for _, f := range s.Failures {
		if !strings.Contains(f, "result flagged (cached; --force recomputes it): collapse: spread ") {
			t.Errorf("failure %q", f)
		}
	}
	// The files still say done: a later run that is not strict is cached.
	if s := runJudge(t, ty, dir, Options{}); s.Cached != 6 || s.Failed != 0 || ty.runs.Load() != runs {
		t.Errorf("after the strict run: %v", s)
	}
}

// DiagValue writes non-finite values as strings and reads them back.
func TestDiagValueJSON(t *testing.T) {
	in := map[string]DiagValue{"a": 1.5, "nan": DiagValue(math.NaN()), "inf": DiagValue(math.Inf(1)), "ninf": DiagValue(math.Inf(-1))}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"a":1.5,"inf":"+Inf","nan":"NaN","ninf":"-Inf"}` {
		t.Errorf("JSON %s", b)
	}
	var out map[string]DiagValue
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out["a"] != 1.5 || !math.IsNaN(float64(out["nan"])) || !math.IsInf(float64(out["inf"]), 1) || !math.IsInf(float64(out["ninf"]), -1) {
		t.Errorf("read back %v", out)
	}
	var v DiagValue
	if err := json.Unmarshal([]byte(`"many"`), &v); err == nil {
		t.Error(`"many" read as a value`)
	}
}

// Many flagged cells are counted by flag at the end of a run, not listed
// one per line; a few are listed.
func TestSummaryCountsManyFlags(t *testing.T) {
	var s Summary
	for i := range 12 {
		d := &Diagnostics{Flags: []DiagFlag{{Code: "ceiling", Reason: "r"}}}
		if i%3 == 0 {
			d.Flags = append(d.Flags, DiagFlag{Code: "collapse", Reason: "r"}, DiagFlag{Code: "collapse", Reason: "again"})
		}
		s.Flagged = append(s.Flagged, fmt.Sprintf("e/m/d/s%d: %s", i, d.Reason()))
		s.countFlags(d)
	}
	out := s.String()
	if strings.Count(out, "flagged:") != 1 || !strings.Contains(out, "flagged: 12 cells, by flag: ceiling 12, collapse 4;") {
		t.Errorf("summary of 12 flagged cells:\n%s", out)
	}
	s.Flagged, s.FlagCodes = s.Flagged[:2], nil
	if out := s.String(); strings.Count(out, "\n  flagged: e/m/d/s") != 2 {
		t.Errorf("summary of 2 flagged cells:\n%s", out)
	}
}
