package harness

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mmdfw/mmdfw/pkg/safefile"
)

// Status is how a cell ended.
type Status string

// Cell statuses. Pending and Stale are never written: they describe a cell
// without a matching provenance file.
const (
	Done    Status = "done"
	Failed  Status = "failed"
	Skipped Status = "skipped"
	Pending Status = "pending"
	Stale   Status = "stale"
)

// Provenance is the JSON file written beside each cell's CSV, last, so that
// its presence marks the cell complete.
type Provenance struct {
	Experiment string            `json:"experiment"`
	File       string            `json:"file"`
	Profile    string            `json:"profile"`
	Overrides  []string          `json:"overrides,omitempty"`
	Cell       string            `json:"cell"`
	Method     string            `json:"method"`
	Kind       string            `json:"kind"`
	Dataset    string            `json:"dataset"`
	Split      int               `json:"split"`
	N          int               `json:"n_particles"`
	Settings   any               `json:"settings"`
	Key        string            `json:"key"`
	KeyDoc     keyDoc            `json:"key_doc"`
	Data       map[string]string `json:"data_sha256,omitempty"`
	Code       Code              `json:"code"`
	Host       Host              `json:"host"`
	Jobs       int               `json:"jobs"`
	Threads    int               `json:"threads"`
	Start      time.Time         `json:"start"`
	End        time.Time         `json:"end"`
	// Load is the machine's 1-minute load average at Start and at End
	// (/proc/loadavg; absent where the system has none): a timed result
	// made on an otherwise idle machine shows a load near Jobs·Threads,
	// one made beside other work a larger one. It enters no cache key.
	Load *LoadAvg `json:"load_avg,omitempty"`
	// Seconds is the method's own clock at its last snapshot (evaluation
	// excluded); End − Start is the cell's wall time, which also holds
	// the loading of its data, the preparation of its metrics and
	// WaitSeconds, the time it waited for an artefact (a reference sample)
	// that another cell or process was computing.
	Seconds     float64         `json:"compute_seconds"`
	WaitSeconds float64         `json:"wait_seconds,omitempty"`
	Steps       int             `json:"steps"`
	GradEvals   int64           `json:"grad_evals"`
	Status      Status          `json:"status"`
	Error       string          `json:"error,omitempty"`
	CSVSHA256   string          `json:"csv_sha256,omitempty"`
	Summary     json.RawMessage `json:"summary,omitempty"`
	// Diagnostics is what the method said about the set it returned
	// (particle.Set.Diag), when it said anything: named values and flags.
	// A flagged result is done unless the run is strict (Options.Strict).
	// It enters no cache key.
	Diagnostics *Diagnostics `json:"diagnostics,omitempty"`

	keyMetric string
	keyValue  float64
}

// LoadAvg is the 1-minute load average at the start and end of a cell.
type LoadAvg struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// loadAvg returns the 1-minute load average from /proc/loadavg, and false
// where it cannot be read.
func loadAvg() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

// Code identifies the code that produced a result.
type Code struct {
	Version   string `json:"code_version"`
	Module    string `json:"module_version"`
	Revision  string `json:"revision,omitempty"`
	Modified  bool   `json:"dirty"`
	Source    string `json:"revision_source,omitempty"`
	GoVersion string `json:"go_version"`
}

// Host describes the machine a result was computed on.
type Host struct {
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUModel string `json:"cpu_model,omitempty"`
	NumCPU   int    `json:"num_cpu"`
	Hostname string `json:"hostname,omitempty"`
}

var (
	vcsOnce sync.Once
	vcsVal  Code
)

// outputPathspecs leave the reproduction's outputs out of the check for
// uncommitted changes: a run writes result files into a checkout where they
// are tracked (results/, figures/, REPORT.md), and those say nothing about
// the code that made them.
var outputPathspecs = []string{":(top,exclude)results", ":(top,exclude)figures", ":(top,exclude)REPORT.md", ":(top,exclude)quick"}

// vcsInfo returns the code identity (codeInfo of this binary's build
// information and of the module's root).
func vcsInfo() Code {
	vcsOnce.Do(func() {
		bi, _ := debug.ReadBuildInfo()
		vcsVal = codeInfo(bi, moduleRoot())
	})
	return vcsVal
}

// codeInfo returns the code identity: the revision recorded in the build
// information bi (vcs.revision and vcs.modified, which go build stamps in
// a checkout unless -buildvcs=false), else the revision git gives for the
// checkout at root, the module's root the code was compiled from (it knows
// about uncommitted changes, outputs aside: outputPathspecs), else none.
// The current directory plays no part: the repository a command is run
// from says nothing of the code that runs.
func codeInfo(bi *debug.BuildInfo, root string) Code {
	c := Code{Version: CodeVersion, Module: moduleVersion(), GoVersion: runtime.Version()}
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				c.Revision = s.Value
				c.Source = "buildinfo"
			case "vcs.modified":
				c.Modified = s.Value == "true"
			}
		}
	}
	if c.Revision != "" {
		return c
	}
	c.Modified = false
	if rev, dirty, ok := gitRevision(root); ok {
		c.Revision, c.Modified, c.Source = rev, dirty, "git"
	}
	return c
}

// moduleRoot returns the folder of this module's go.mod as it was when the
// package was compiled, or "" when it is not there now (a binary built
// elsewhere, or with -trimpath).
func moduleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	// file is <root>/pkg/harness/provenance.go.
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	b, err := safefile.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	mod := strings.TrimSuffix(reflect.TypeFor[Code]().PkgPath(), "/pkg/harness")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == mod {
			return root
		}
	}
	return ""
}

// gitRevision asks git for the revision checked out at root, and whether
// files other than the outputs differ from it. git runs in root with its
// hooks and file-system monitor off and the environment's GIT_ variables
// removed, and only when root is the top of its work tree (not a folder
// of some enclosing repository); ok is false otherwise or when git fails.
func gitRevision(root string) (rev string, dirty, ok bool) {
	if root == "" {
		return "", false, false
	}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "core.fsmonitor=", "-c", "core.hooksPath=" + os.DevNull, "--no-optional-locks"}, args...)...)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GIT_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil || !sameDir(top, root) {
		return "", false, false
	}
	if rev, err = git("rev-parse", "HEAD"); err != nil || rev == "" {
		return "", false, false
	}
	if st, err := git(append([]string{"status", "--porcelain", "--untracked-files=no", "--"}, outputPathspecs...)...); err == nil {
		dirty = st != ""
	}
	return rev, dirty, true
}

// sameDir reports whether a and b name one folder.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

var (
	hostOnce sync.Once
	hostVal  Host
)

func hostInfo() Host {
	hostOnce.Do(func() {
		h := Host{OS: runtime.GOOS, Arch: runtime.GOARCH, NumCPU: runtime.NumCPU()}
		h.Hostname, _ = os.Hostname()
		if f, err := os.Open("/proc/cpuinfo"); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				k, v, ok := strings.Cut(sc.Text(), ":")
				if ok && strings.TrimSpace(k) == "model name" {
					h.CPUModel = strings.TrimSpace(v)
					break
				}
			}
			f.Close()
		}
		hostVal = h
	})
	return hostVal
}

// MaxProvenanceBytes bounds a provenance file ReadProvenance reads: the
// largest committed one has 54 KB (a deep ensemble's summary), so a file
// of megabytes is not one of this program's.
const MaxProvenanceBytes = 16 << 20

// ReadProvenance reads a cell's provenance file. A path that is a symbolic
// link or not a regular file is an error (see package safefile): it is
// never followed, and a named pipe never blocks. A file of more than
// MaxProvenanceBytes is an error too, read no further.
func ReadProvenance(path string) (*Provenance, error) {
	b, err := safefile.ReadFileMax(path, MaxProvenanceBytes)
	if err != nil {
		return nil, err
	}
	var p Provenance
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
