package harness

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
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

// vcsInfo returns the code identity, asking git when it is available (it
// knows about uncommitted changes in the working directory, outputs aside:
// outputPathspecs) and the build information otherwise.
func vcsInfo() Code {
	vcsOnce.Do(func() {
		c := Code{Version: CodeVersion, Module: moduleVersion(), GoVersion: runtime.Version()}
		if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
			c.Revision = strings.TrimSpace(string(out))
			c.Source = "git"
			if st, err := exec.Command("git", append([]string{"status", "--porcelain", "--untracked-files=no", "--"}, outputPathspecs...)...).Output(); err == nil {
				c.Modified = len(strings.TrimSpace(string(st))) > 0
			}
		} else if bi, ok := debug.ReadBuildInfo(); ok {
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
		vcsVal = c
	})
	return vcsVal
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

// ReadProvenance reads a cell's provenance file.
func ReadProvenance(path string) (*Provenance, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Provenance
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
