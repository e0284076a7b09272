package harness

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
)

// The memory check of a run: each method kind may register an estimate of
// the bytes one cell needs (SetMemoryEstimate), computed when the file is
// loaded for each particle count of each method, and Run refuses, before
// any cell runs, a run with a cell whose estimate exceeds the machine's
// memory, naming the file, line and key that drive the estimate.

// Footprint is what a method kind's memory estimate sees of one cell. The
// dataset is not read when a file is loaded: Dim is a floor on the
// target's dimension, so that estimates are floors too and never refuse a
// cell that fits.
type Footprint[S any] struct {
	// Settings are the method's resolved settings.
	Settings S
	// N is the cell's particle count, 0 for the method's own default.
	N int
	// Dim is a floor on the dimension of the target: 1.
	Dim int
	// Eval and Budget are the experiment's.
	Eval   Schedule
	Budget Budget
}

// RecordedBytes is a floor on the bytes the recorder keeps for a method
// that takes steps snapshots (capped by Budget.Steps): one row of the
// experiment's metrics per evaluated snapshot, as the rows and the CSV
// text they become. A schedule with no rule evaluates every snapshot;
// every_seconds and every_grad_evals count for none (their number is not
// known before the run).
func (f Footprint[S]) RecordedBytes(steps int) float64 {
	if f.Budget.Steps > 0 && f.Budget.Steps < steps {
		steps = f.Budget.Steps
	}
	if steps <= 0 {
		return 0
	}
	sc := f.Eval
	n := 0.0
	switch {
	case sc.Every == 0 && sc.EverySeconds == 0 && sc.EveryGradEvals == 0 && !sc.Log:
		n = float64(steps)
	default:
		if sc.Every > 0 {
			n += float64(steps / sc.Every)
		}
		if sc.Log {
			n += 3 * math.Log10(float64(steps))
		}
	}
	return n * float64(rowBytes+metricBytes*max(1, len(sc.Metrics)))
}

// The bytes of a recorded row, and of each of its metrics (the value and
// its CSV line, about 100 characters).
const (
	rowBytes    = 64
	metricBytes = 128
)

// Memory is a memory estimate of one cell: Bytes, and the key of the
// method's table (particles, settings.iterations) whose value drives it,
// with what the estimate counts (the N×N Gram, 8·N² bytes).
type Memory struct {
	Bytes float64
	// Key is relative to the method's table: "particles" or
	// "settings.<key>".
	Key string
	// Value is the value of Key (N for particles when left nil).
	Value any
	// What says which terms the estimate counts.
	What string
}

// SetMemoryEstimate gives the method kind name of r an estimate of the
// memory one cell needs. S must be the settings type the kind was
// registered with. A kind without an estimate is not checked.
func SetMemoryEstimate[S any](r *Registry, name string, f func(Footprint[S]) Memory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := traitOf[S](r, name, "memory estimate")
	m.memory = func(settings any, n int, e *Experiment) Memory {
		return f(footprint[S](settings, n, e))
	}
}

// traitOf returns the method kind name of r that a trait (what) is given
// to, panicking when name is not registered or S is not the settings type
// it was registered with. r.mu must be held.
func traitOf[S any](r *Registry, name, what string) *methodKind {
	m, ok := r.methods[name]
	if !ok {
		panic("harness: " + what + " of unregistered method " + name)
	}
	var zero S
	if t := reflect.TypeOf(zero); t != m.settings {
		panic(fmt.Sprintf("harness: %s of method %s takes %v, its settings are %v", what, name, t, m.settings))
	}
	return m
}

// footprint is what a trait function is given of one cell: its settings,
// particle count, evaluation and budget (the dimension, not known before
// the data are read, as 1).
func footprint[S any](settings any, n int, e *Experiment) Footprint[S] {
	return Footprint[S]{Settings: settings.(S), N: n, Dim: 1, Eval: e.Eval, Budget: e.Budget}
}

// cellMemory is the estimate of one particle count of a method, with the
// place of the key that drives it.
type cellMemory struct {
	Memory
	at *ConfigError // file, line and key; Msg empty
}

// estimateMemory sets the estimates of every particle count of m, and of
// the reference of e (the experiment being decoded by d under prefix).
func (d *decoder) estimateMemory(e *Experiment, m *Method, prefix []string) {
	if m.kind == nil || m.kind.memory == nil {
		m.memory = nil
	} else {
		d.estimateMethod(e, m, prefix)
	}
	if ref := e.Reference; ref != nil && ref.kind != nil && ref.kind.memory != nil {
		est := ref.kind.memory(ref.Settings, ref.Particles, e)
		key := append([]string{"reference"}, strings.Split(est.Key, ".")...)
		ref.memory = &cellMemory{Memory: est, at: d.errAt(d.where(prefix, key...), "")}
	}
}

func (d *decoder) estimateMethod(e *Experiment, m *Method, prefix []string) {
	ns := m.Particles
	if len(ns) == 0 {
		ns = []int{0}
	}
	m.memory = map[int]cellMemory{}
	for _, n := range ns {
		est := m.kind.memory(m.Settings, n, e)
		key := append([]string{"methods", m.Name}, strings.Split(est.Key, ".")...)
		m.memory[n] = cellMemory{Memory: est, at: d.errAt(d.where(prefix, key...), "")}
	}
}

// NoMemoryCheck as Options.Memory turns the memory check off.
const NoMemoryCheck = math.MaxUint64

// MemoryEnv is the environment variable that sets the memory Run checks
// cells against, in bytes or with a unit (64GiB, 500G, 512MiB); 0 or "off"
// turns the check off. Options.Memory takes precedence.
const MemoryEnv = "MMDFW_MEMORY"

// ParseBytes reads a size in bytes, optionally with a unit: k, M, G, T
// (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024); the B of kB,
// MB… is optional. "off" is 0.
func ParseBytes(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "off") {
		return 0, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size (want bytes, or a number and a unit: 64GiB, 500G)", s)
	}
	mult := map[string]float64{"": 1, "b": 1,
		"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
	f, ok := mult[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (k, M, G, T or KiB, MiB, GiB, TiB)", s, unit)
	}
	if v*f >= math.MaxUint64 {
		return math.MaxUint64, nil
	}
	return uint64(v * f), nil
}

// machineMemory returns the memory Run checks cells against and where it
// comes from: Options.Memory, else $MMDFW_MEMORY, else MemAvailable of
// /proc/meminfo (MemTotal when it has none); 0 when none is known (the
// check is off).
func (r *Runner) machineMemory() (uint64, string, error) {
	switch r.opts.Memory {
	case NoMemoryCheck:
		return 0, "", nil
	case 0:
	default:
		return r.opts.Memory, "--memory", nil
	}
	if s := os.Getenv(MemoryEnv); s != "" {
		b, err := ParseBytes(s)
		if err != nil {
			return 0, "", fmt.Errorf("$%s: %w", MemoryEnv, err)
		}
		return b, "$" + MemoryEnv, nil
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, "", nil
	}
	defer f.Close()
	var avail, total uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "MemAvailable":
			avail = n * 1024
		case "MemTotal":
			total = n * 1024
		}
	}
	if avail > 0 {
		return avail, "MemAvailable in /proc/meminfo", nil
	}
	return total, "MemTotal in /proc/meminfo", nil
}

// checkMemory refuses, before any cell runs, cells whose method's memory
// estimate exceeds the machine's memory: the error names the file, line
// and key, the value, the estimate and the memory.
func (r *Runner) checkMemory(todo []CellStatus) error {
	if len(todo) == 0 {
		return nil
	}
	limit, from, err := r.machineMemory()
	if err != nil || limit == 0 {
		return err
	}
	for _, st := range todo {
		c := st.Cell
		if err := c.Method.checkMemory(c.N, limit, from); err != nil {
			return err
		}
		if ref := c.Experiment.Reference; ref != nil && ref.memory != nil && ref.memory.Bytes > float64(limit) {
			return memoryError(ref.memory, ref.Particles, limit, from)
		}
	}
	return nil
}

// checkMemory refuses a cell of m with n particles whose estimate exceeds
// limit bytes (from says where limit comes from).
func (m *Method) checkMemory(n int, limit uint64, from string) error {
	cm, ok := m.memory[n]
	if !ok || cm.Bytes <= float64(limit) {
		return nil
	}
	return memoryError(&cm, n, limit, from)
}

// memoryError is the error at cm's key for an estimate above limit.
func memoryError(cm *cellMemory, n int, limit uint64, from string) error {
	e := *cm.at
	v := cm.Value
	if v == nil {
		v = n
	}
	// e.Msg names the override that set the key, if one did.
	e.Msg += fmt.Sprintf("%v needs about %s in one cell (%s), ", v, FormatBytes(cm.Bytes), cm.What)
	if strings.HasPrefix(from, "Mem") {
		e.Msg += fmt.Sprintf("more than this machine's %s (%s; --memory or $%s sets another, off for no check)",
			FormatBytes(float64(limit)), from, MemoryEnv)
	} else {
		e.Msg += fmt.Sprintf("more than the %s that %s sets", FormatBytes(float64(limit)), from)
	}
	return &e
}

// FormatBytes writes b in binary units, three significant digits.
func FormatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if b >= 1024 {
		return fmt.Sprintf("%.3g %s", b, units[i])
	}
	return strconv.FormatFloat(b, 'g', 3, 64) + " " + units[i]
}

// CellMemory returns the memory estimate of c's method at c's particle
// count and, when c's experiment has a reference, of the reference's
// draws; ok is false when neither kind has an estimate.
func CellMemory(c *Cell) (method, reference Memory, ok bool) {
	if cm, has := c.Method.memory[c.N]; has {
		method, ok = cm.Memory, true
	}
	if ref := c.Experiment.Reference; ref != nil && ref.memory != nil {
		reference, ok = ref.memory.Memory, true
	}
	return method, reference, ok
}
