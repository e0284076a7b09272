package harness

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// outsideFile writes a file outside the results directory and returns its
// path and a check that it still holds what it held.
func outsideFile(t *testing.T) (path string, unchanged func()) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "precious.txt")
	const content = "not the runner's to write\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, func() {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil || string(b) != content {
			t.Errorf("the file outside the results now holds %q (%v)", b, err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
}

// A running marker that is a link to a file outside the results is never
// written through: the cell fails naming the marker, the others run.
func TestSymlinkedMarkerLeavesTargetAlone(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	cells := loadExp(t, ty, base)
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 1, Log: quiet})
	target, unchanged := outsideFile(t)
	symlink(t, target, r.MarkerPath(cells[0]))
	sum, err := r.Run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	unchanged()
	if sum.Failed != 1 || sum.Done != len(cells)-1 {
		t.Fatalf("summary %v", sum)
	}
	if !strings.Contains(sum.Failures[0], cells[0].ID) || !strings.Contains(sum.Failures[0], "symbolic link") {
		t.Errorf("failure %q does not name the linked marker", sum.Failures[0])
	}
	if r.Running(cells[0]) {
		t.Error("a linked marker counts as running")
	}
}

// An artefact's lock file that is a link is neither followed nor written.
func TestSymlinkedLockLeavesTargetAlone(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	target, unchanged := outsideFile(t)
	symlink(t, target, s.Path("map/x")+".lock")
	_, err := s.Artefact(context.Background(), "map/x", func(context.Context) ([]byte, error) { return []byte("1"), nil })
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Artefact with a linked lock: %v", err)
	}
	unchanged()
}

// A provenance that is a link (to a copy of a real one) is not read: the
// cell is stale, saying why, and a run replaces the link, not its target.
func TestSymlinkedProvenanceNotFollowed(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	runExp(t, ty, dir, 1, base, "", false)
	cells := loadExp(t, ty, base)
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 1, Log: quiet})
	_, pp := r.Paths(cells[0])
	b, err := os.ReadFile(pp)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "prov.json")
	if err := os.WriteFile(target, b, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(pp)
	symlink(t, target, pp)
	st, err := r.Status(cells[0])
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != Stale || !strings.Contains(st.StaleReason(), "provenance unreadable") || !strings.Contains(st.StaleReason(), "symbolic link") {
		t.Errorf("linked provenance: %s, %q", st.Status, st.StaleReason())
	}
	if _, err := r.Run(context.Background(), cells[:1]); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(target); string(after) != string(b) {
		t.Error("the run wrote through the linked provenance")
	}
	if fi, err := os.Lstat(pp); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the run left %v (%v) in place of the provenance", fi, err)
	}
}

// A CSV edited after it was written is stale, saying why, and a run
// computes it again.
func TestEditedCSVIsStale(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	runExp(t, ty, dir, 1, base, "", false)
	cells := loadExp(t, ty, base)
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 1, Log: quiet})
	csv, _ := r.Paths(cells[0])
	b, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := lines[len(lines)-1]
	lines[len(lines)-1] = last[:strings.LastIndex(last, ",")+1] + "0.81"
	edited := strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(csv, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := r.Status(cells[0])
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != Stale || !strings.Contains(st.StaleReason(), "CSV changed since it was written") {
		t.Fatalf("edited CSV: %s, %q", st.Status, st.StaleReason())
	}
	for _, rs := range []Options{{RecordedData: true}, {KeyRevision: false}} {
		rs.Results = dir
		if st, _ := NewRunner(ty.reg, rs).Status(cells[0]); st.Status != Stale {
			t.Errorf("edited CSV under %+v: %s", rs, st.Status)
		}
	}
	runs := ty.runs.Load()
	sum, err := r.Run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	if ty.runs.Load() != runs+1 || sum.Done != len(cells) || sum.Cached != len(cells)-1 {
		t.Errorf("run after the edit: %d method runs, summary %v", ty.runs.Load()-runs, sum)
	}
	// The same values, compute_seconds aside.
	noTime := func(b []byte) string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Split(l, ","); len(f) > 7 {
				l = strings.Join(append(f[:7:7], f[8:]...), ",")
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	if now, _ := os.ReadFile(csv); noTime(now) != noTime(b) {
		t.Errorf("the recomputed CSV is not the one first written:\n%s\nwant\n%s", now, b)
	}
}

// A truncated provenance makes its cell stale with the reason; the other
// cells are listed as before, and a run recomputes it.
func TestTruncatedProvenanceIsStale(t *testing.T) {
	ty := newToy()
	dir := t.TempDir()
	runExp(t, ty, dir, 1, base, "", false)
	cells := loadExp(t, ty, base)
	r := NewRunner(ty.reg, Options{Results: dir, Jobs: 1, Log: quiet})
	_, pp := r.Paths(cells[2])
	b, err := os.ReadFile(pp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pp, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := r.Count(cells)
	if err != nil {
		t.Fatalf("a truncated provenance stops the count: %v", err)
	}
	if n.Done != len(cells)-1 || n.Stale != 1 || len(n.StaleCells) != 1 ||
		!strings.HasPrefix(n.StaleCells[0], cells[2].ID+": provenance unreadable: ") || !strings.Contains(n.StaleCells[0], pp) {
		t.Errorf("counts %v, stale %q", n, n.StaleCells)
	}
	sum, err := r.Run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Done != len(cells) || sum.Cached != len(cells)-1 {
		t.Errorf("run: %v", sum)
	}
}

// A metric that is NaN fails its cell instead of making it done.
func TestNaNMetricFails(t *testing.T) {
	ty := newToy()
	ty.reg.RegisterMetric("nanmetric", func(ctx context.Context, p *Problem, env *Env) (Metric, error) {
		return func(s particle.Snapshot) float64 {
			if s.Step >= 6 {
				return math.NaN()
			}
			return 1
		}, nil
	})
	text := strings.Replace(base, `metrics = ["mean0", "sq"]`, `metrics = ["mean0", "nanmetric"]`, 1)
	sum := runExp(t, ty, t.TempDir(), 1, text, "", false)
	if sum.Failed != sum.Total || sum.Done != 0 {
		t.Fatalf("summary %v", sum)
	}
	for _, f := range sum.Failures {
		if !strings.Contains(f, "metric nanmetric is NaN at step 6") {
			t.Errorf("failure %q", f)
		}
	}
}

// An artefact that no longer matches the checksum recorded beside it is
// computed again; ReadReference refuses it.
func TestArtefactChecksum(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	computed := 0
	get := func() []byte {
		t.Helper()
		b, err := NewStore(dir).Artefact(context.Background(), "reference/x/s0", func(context.Context) ([]byte, error) {
			computed++
			return []byte("the reference"), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	get()
	if b := get(); string(b) != "the reference" || computed != 1 {
		t.Fatalf("cached read: %q after %d computations", b, computed)
	}
	if _, err := os.Stat(s.Path("reference/x/s0") + SumSuffix); err != nil {
		t.Fatal("no checksum recorded:", err)
	}
	if err := os.WriteFile(s.Path("reference/x/s0"), []byte("another reference"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadReference(s.Path("reference/x/s0")); err == nil || !strings.Contains(err.Error(), "does not match the sha256") {
		t.Errorf("ReadReference of a changed file: %v", err)
	}
	if b := get(); string(b) != "the reference" || computed != 2 {
		t.Errorf("after the change: %q after %d computations, want a second computation", b, computed)
	}
	// An artefact copied from another key, with its record, is refused.
	other := s.Path("reference/y/s0")
	os.MkdirAll(filepath.Dir(other), 0o755)
	for _, suf := range []string{"", SumSuffix} {
		b, _ := os.ReadFile(s.Path("reference/x/s0") + suf)
		os.WriteFile(other+suf, b, 0o644)
	}
	if _, err := readArtefact(other, "reference/y/s0"); err == nil || !strings.Contains(err.Error(), `recorded for key "reference/x/s0"`) {
		t.Errorf("artefact of another key: %v", err)
	}
}

// Dataset names that are not one folder are refused at load, naming the
// file and the key.
func TestDotNamesRefused(t *testing.T) {
	ty := newToy()
	RegisterFileDataset(ty.reg, func(file, name string, s ownSettings) (Dataset, error) {
		gauss, _ := ty.reg.dataset("gauss")
		return *gauss, nil
	})
	for _, name := range []string{"..", ".", ".hidden"} {
		text := strings.ReplaceAll(ownExp, "mine", name)
		text = strings.Replace(text, "[data."+name+"]", `[data."`+name+`"]`, 1)
		_, err := Load(ty.reg, "toy.toml", []byte(text), "")
		if err == nil || !strings.Contains(err.Error(), `toy.toml:6: key data."`+name+`": "`+name+`" is not a valid dataset name`) {
			t.Errorf("[data.%q]: %v", name, err)
		}
	}
	for _, bad := range []string{`..`, `a/b`} {
		if pathSegment(bad) {
			t.Errorf("pathSegment(%q) is true", bad)
		}
	}
	// A cell built by hand with such a name fails before writing.
	cells := loadExp(t, ty, base)
	c := *cells[0]
	c.Dataset, c.ID = "..", "toy/walk-a/../s0/n3"
	dir := t.TempDir()
	r := NewRunner(ty.reg, Options{Results: dir, Log: quiet})
	if err := r.checkPath(&c); err == nil || !strings.Contains(err.Error(), "cannot name a folder") {
		t.Errorf("checkPath: %v", err)
	}
}

// The recorded revision is the build's, else the module root's; the
// repository of the current directory plays no part, and none of its hooks
// runs.
func TestRevisionNotFromCurrentDirectory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	repo := t.TempDir()
	sentinel := filepath.Join(t.TempDir(), "hook-ran")
	hook := filepath.Join(repo, "fsmonitor.sh")
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git(repo, "init", "-q")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+sentinel+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	git(repo, "config", "core.fsmonitor", hook)
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.org/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(repo, "add", "go.mod")
	git(repo, "commit", "-q", "-m", "other")
	os.Remove(sentinel) // git's own commit may have run the monitor
	other := git(repo, "rev-parse", "HEAD")
	t.Chdir(repo)

	c := codeInfo(nil, moduleRoot())
	if c.Revision == other {
		t.Errorf("the revision %s is the current directory's", c.Revision)
	}
	// git at a root whose repository has a file-system monitor: the hook
	// does not run.
	rev, _, ok := gitRevision(repo)
	if !ok || rev != other {
		t.Errorf("gitRevision(%s) = %q, %v; want %s", repo, rev, ok, other)
	}
	if _, err := os.Stat(sentinel); err == nil {
		t.Error("the repository's fsmonitor hook ran")
	}
	// A folder inside a repository is not its top: no revision.
	sub := filepath.Join(repo, "sub")
	os.Mkdir(sub, 0o755)
	if rev, _, ok := gitRevision(sub); ok {
		t.Errorf("gitRevision of a sub-folder = %q", rev)
	}
	// The build's own revision comes first.
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}
	if c := codeInfo(bi, repo); c.Revision != "abc123" || !c.Modified || c.Source != "buildinfo" {
		t.Errorf("codeInfo with build information: %+v", c)
	}
	if c := codeInfo(nil, ""); c.Revision != "" || c.Source != "" {
		t.Errorf("codeInfo with neither: %+v", c)
	}
}

// A version go build stamps from a checkout does not enter cache keys.
func TestModuleVersionOf(t *testing.T) {
	for v, want := range map[string]string{
		"":                                   "(devel)",
		"(devel)":                            "(devel)",
		"v1.2.3":                             "v1.2.3",
		"v0.0.0-20261206041611-cb3c5a8c00d9": "(devel)",
		"v0.0.0-20261206041611-cb3c5a8c00d9+dirty":  "(devel)",
		"v1.2.4-0.20261206041611-cb3c5a8c00d9":      "(devel)",
		"v1.2.4-rc.1.0.20261206041611-cb3c5a8c00d9": "(devel)",
		"v1.2.3+dirty": "(devel)",
		"v1.3.0-rc.1":  "v1.3.0-rc.1",
	} {
		if got := moduleVersionOf(v); got != want {
			t.Errorf("moduleVersionOf(%q) = %q, want %q", v, got, want)
		}
	}
}
