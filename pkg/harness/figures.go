package harness

import (
	"encoding"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Figure is one figure an experiment file declares in a [[figures]] table:
// what the report draws from the experiment's results. Figures are
// presentation: they enter no cache key, and changing one never makes a
// result stale.
type Figure struct {
	// ID names the figure and the base of its files (with the dataset
	// appended when the experiment has several, and the metric when Y has
	// several); claims of the report name the figures they rest on by it.
	ID string `toml:"id" json:"id"`
	// Title is the first part of every panel's title; the report adds the
	// dataset and what is drawn against what. Default: the experiment id.
	Title string `toml:"title" json:"title,omitempty"`
	// X is the abscissa: XSeconds (compute time), XGradients (gradient
	// evaluations) or XParticles (the number of particles). Default:
	// XSeconds for a timed experiment, else XParticles.
	X string `toml:"x" json:"x"`
	// Y are the metrics drawn, each a registered metric or a method's
	// statistic (StatPrefix + name); one file per metric when there are
	// several. A single metric may be written as a string.
	Y Metrics `toml:"y" json:"y"`
	// Fallback, when set, is the metric drawn on a dataset whose cells
	// do not record the single metric of Y (mmd2_exact where the target
	// has a closed form, else mmd2).
	Fallback string `toml:"fallback" json:"fallback,omitempty"`
	// YLabel replaces the metric's axis label (MetricMeaning.Label).
	YLabel string `toml:"y_label" json:"y_label,omitempty"`
	// Methods, when not empty, are the method names drawn (in the legend
	// order of the report); default every method of the experiment.
	Methods []string `toml:"methods" json:"methods,omitempty"`
	// Kinds and Where select the methods drawn by their typed settings
	// (intersected with Methods when both are given): a method is drawn
	// when its kind is among Kinds (any, when empty) and each key of
	// Where, a settings key of its kind, decodes to the value its resolved
	// settings hold (an unset setting holds its zero value: where = {
	// kernel = "rbf" } selects the MMD-FW methods that keep the default
	// kernel). A selection that matches no method, or a key no selected
	// kind has, is an error.
	Kinds []string       `toml:"kinds" json:"kinds,omitempty"`
	Where map[string]any `toml:"where" json:"where,omitempty"`
	// LogX and LogY choose log axes. Unset, the time and gradient axes
	// are logarithmic when the evaluation grid spans more than two
	// decades, the particle axis is linear, and the y axis is
	// logarithmic for a metric whose registered meaning says so
	// (MetricMeaning.Log: the MMD² metrics; a method's statistic such as
	// StatPrefix+"mmd2_kernel_pool", an estimate that may be negative,
	// stays linear). On a log y axis the curves are geometric means
	// over splits with a band exp(mean ± sd) of the log values; on a
	// linear one, means with a band mean ± sd.
	LogX *bool `toml:"log_x" json:"log_x,omitempty"`
	LogY *bool `toml:"log_y" json:"log_y,omitempty"`
	// Band is BandSD (default: ± one sample sd over splits) or BandNone.
	Band string `toml:"band" json:"band,omitempty"`
	// Fit is empty or FitRate: fit log y = a − r·x to each series (x the
	// number of particles) and draw the fitted line, with the rate and R²
	// in the legend.
	Fit string `toml:"fit" json:"fit,omitempty"`
	// OwnKernel draws a random-feature MMD-FW series in the MMD² of its
	// own kernel (StatPrefix+"mmd2_kernel") where its cells record it,
	// next to a second panel with every series in the metric of Y.
	OwnKernel bool `toml:"own_kernel" json:"own_kernel,omitempty"`
	// Panels, when not empty, draw one panel per entry, side by side with
	// one legend, each with the methods it names: the groups of an
	// ablation.
	Panels []Panel `toml:"panels" json:"panels,omitempty"`
}

// Panel is one panel of a figure: a title and the methods it draws.
type Panel struct {
	Title   string   `toml:"title" json:"title"`
	Methods []string `toml:"methods" json:"methods"`
}

// Metrics is a list of metric names that decodes from a TOML string (one
// metric) or array of strings.
type Metrics []string

// UnmarshalTOML decodes a string or an array of strings.
func (m *Metrics) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*m = Metrics{v}
		return nil
	case []any:
		out := make(Metrics, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("metric %v is not a string", x)
			}
			out = append(out, s)
		}
		*m = out
		return nil
	}
	return fmt.Errorf("y must be a metric name or a list of metric names, not %T", v)
}

// Figure abscissae, bands and fits.
const (
	XSeconds   = "seconds"
	XGradients = "gradients"
	XParticles = "particles"
	BandSD     = "sd"
	BandNone   = "none"
	FitRate    = "rate"
)

var figureIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// checkFigures validates the figures of the file against the experiment e
// resolved under one profile and returns them with their defaults set. A
// figure naming a method the experiment does not define, or a metric that
// is not registered, is a *ConfigError naming the figure and its key.
func (d *decoder) checkFigures(figs []Figure, e *Experiment) ([]Figure, error) {
	methods := map[string]bool{}
	var names []string
	for _, m := range e.Methods {
		methods[m.Name] = true
		names = append(names, m.Name)
	}
	seen := map[string]bool{}
	out := make([]Figure, 0, len(figs))
	for i, f := range figs {
		errAt := func(key, format string, args ...any) error {
			return &ConfigError{File: d.file, Line: figureLine(d.src, i, key), Key: fmt.Sprintf("figures[%d].%s", i, key),
				Msg: fmt.Sprintf("figure %q: ", f.ID) + fmt.Sprintf(format, args...)}
		}
		if f.ID == "" {
			return nil, errAt("id", "required key is missing")
		}
		if !figureIDRE.MatchString(f.ID) {
			return nil, errAt("id", "%q is not a valid figure id (lower-case letters, digits, '.', '_' and '-')", f.ID)
		}
		if seen[f.ID] {
			return nil, errAt("id", "figure id %q is declared twice", f.ID)
		}
		seen[f.ID] = true
		if f.Title == "" {
			f.Title = e.ID
		}
		switch f.X {
		case "":
			f.X = XParticles
			if e.Timed {
				f.X = XSeconds
			}
		case XSeconds, XGradients, XParticles:
		default:
			return nil, errAt("x", "unknown axis %q (axes: %s, %s, %s)", f.X, XSeconds, XGradients, XParticles)
		}
		if len(f.Y) == 0 {
			return nil, errAt("y", "at least one metric is needed")
		}
		ys := map[string]bool{}
		for _, m := range f.Y {
			if err := d.figureMetric(m); err != nil {
				return nil, errAt("y", "%v", err)
			}
			if ys[m] {
				return nil, errAt("y", "metric %q is listed twice", m)
			}
			ys[m] = true
		}
		if f.Fallback != "" {
			if len(f.Y) != 1 {
				return nil, errAt("fallback", "a fallback needs a single metric in y")
			}
			if err := d.figureMetric(f.Fallback); err != nil {
				return nil, errAt("fallback", "%v", err)
			}
		}
		for _, m := range f.Methods {
			if !methods[m] {
				return nil, errAt("methods", "unknown method %q (the experiment's methods: %s)", m, strings.Join(names, ", "))
			}
		}
		for _, k := range f.Kinds {
			if _, ok := d.reg.method(k); !ok {
				return nil, errAt("kinds", "%v", unknownName("method", k, d.reg))
			}
		}
		if len(f.Kinds) > 0 || len(f.Where) > 0 {
			sel, key, err := selectMethods(e, f)
			if err != nil {
				return nil, errAt(key, "%v", err)
			}
			f.Methods = sel
		}
		switch f.Band {
		case "":
			f.Band = BandSD
		case BandSD, BandNone:
		default:
			return nil, errAt("band", "unknown band %q (bands: %s, %s)", f.Band, BandSD, BandNone)
		}
		switch f.Fit {
		case "":
		case FitRate:
			if f.X != XParticles {
				return nil, errAt("fit", "a rate is fitted against particles, not %s", f.X)
			}
		default:
			return nil, errAt("fit", "unknown fit %q (fits: %s)", f.Fit, FitRate)
		}
		if len(f.Panels) > 0 && (f.Fit != "" || f.OwnKernel) {
			return nil, errAt("panels", "panels cannot be combined with fit or own_kernel")
		}
		for j, p := range f.Panels {
			if p.Title == "" {
				return nil, errAt(fmt.Sprintf("panels[%d].title", j), "required key is missing")
			}
			if len(p.Methods) == 0 {
				return nil, errAt(fmt.Sprintf("panels[%d].methods", j), "at least one method is needed")
			}
			for _, m := range p.Methods {
				if !methods[m] {
					return nil, errAt(fmt.Sprintf("panels[%d].methods", j), "unknown method %q (the experiment's methods: %s)", m, strings.Join(names, ", "))
				}
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// figureMetric checks that m is a registered metric or a method's
// statistic.
func (d *decoder) figureMetric(m string) error {
	if strings.HasPrefix(m, StatPrefix) && len(m) > len(StatPrefix) {
		return nil
	}
	if _, ok := d.reg.metric(m); !ok {
		return unknownName("metric", m, d.reg)
	}
	return nil
}

// figureLine returns the line of key in the i-th [[figures]] table of
// src ("panels[j].k" in its j-th [[figures.panels]] table), the line of
// the table's header when the key is not written there, or 0 when the
// figures are not written as [[figures]] tables.
func figureLine(src []byte, i int, key string) int {
	panel := -1
	if rest, ok := strings.CutPrefix(key, "panels["); ok {
		n, k, _ := strings.Cut(rest, "].")
		if _, err := fmt.Sscanf(n, "%d", &panel); err != nil {
			panel = -1
		}
		key = k
	}
	key, _, _ = strings.Cut(key, ".")
	key, _, _ = strings.Cut(key, "[")
	fig, pan, header := -1, -1, 0
	in := false // inside the table the key is looked for
	for ln, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			switch {
			case t == "[[figures]]":
				fig, pan = fig+1, -1
				in = fig == i && panel < 0
			case t == "[[figures.panels]]":
				pan++
				in = fig == i && pan == panel
			default:
				in = false
			}
			if in {
				header = ln + 1
			}
			continue
		}
		if !in {
			continue
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
			return ln + 1
		}
	}
	return header
}

// figureKeyLine returns the line of the first [[figures]] (or, for a key
// under panels, [[figures.panels]]) table of src that writes the last part
// of key, or 0: the toml package does not report lines inside arrays of
// tables.
func figureKeyLine(src []byte, key []string) int {
	want := "[[figures]]"
	if len(key) > 2 && key[1] == "panels" {
		want = "[[figures.panels]]"
	}
	last := key[len(key)-1]
	in := false
	for ln, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			in = t == want
			continue
		}
		if k, _, ok := strings.Cut(t, "="); in && ok && strings.TrimSpace(k) == last {
			return ln + 1
		}
	}
	return 0
}

// selectMethods returns the names of the methods of e that figure f's
// Kinds and Where select (among f.Methods when it names some), in file
// order, or an error and the key at fault.
func selectMethods(e *Experiment, f Figure) ([]string, string, error) {
	keys := make([]string, 0, len(f.Where))
	for k := range f.Where {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	known := map[string]bool{}
	var out []string
	for _, m := range e.Methods {
		if len(f.Methods) > 0 && !slices.Contains(f.Methods, m.Name) {
			continue
		}
		if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, m.Kind) {
			continue
		}
		match := true
		for _, k := range keys {
			got, ok := settingField(m.Settings, k)
			if !ok {
				match = false
				continue
			}
			known[k] = true
			want := reflect.New(got.Type())
			if err := setFromTOML(want, f.Where[k]); err != nil {
				return nil, "where." + k, fmt.Errorf("%v for the settings of kind %s", err, m.Kind)
			}
			if !reflect.DeepEqual(want.Elem().Interface(), got.Interface()) {
				match = false
			}
		}
		if match {
			out = append(out, m.Name)
		}
	}
	for _, k := range keys {
		if !known[k] {
			return nil, "where." + k, fmt.Errorf("no selected method kind has a setting %q", k)
		}
	}
	if len(out) == 0 {
		key := "where"
		if len(keys) == 0 {
			key = "kinds"
		}
		return nil, key, fmt.Errorf("the selection matches no method")
	}
	return out, "", nil
}

// settingField returns the field of the settings value s (a struct) whose
// TOML name is key, promoted fields of embedded structs included.
func settingField(s any, key string) (reflect.Value, bool) {
	v := reflect.ValueOf(s)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	for _, sf := range reflect.VisibleFields(v.Type()) {
		name, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if name == key && sf.IsExported() {
			fv, err := v.FieldByIndexErr(sf.Index)
			if err != nil {
				return reflect.Value{}, false
			}
			return fv, true
		}
	}
	return reflect.Value{}, false
}

// setFromTOML stores the decoded TOML value x (string, int64, float64,
// bool) into *dst, through the type's text form when it has one.
func setFromTOML(dst reflect.Value, x any) error {
	if u, ok := dst.Interface().(encoding.TextUnmarshaler); ok {
		s, ok := x.(string)
		if !ok {
			return fmt.Errorf("%v is not a string", x)
		}
		return u.UnmarshalText([]byte(s))
	}
	el := dst.Elem()
	xv := reflect.ValueOf(x)
	switch {
	case el.Kind() == reflect.Bool && xv.Kind() == reflect.Bool,
		el.Kind() == reflect.String && xv.Kind() == reflect.String:
		el.Set(xv.Convert(el.Type()))
	case el.CanInt() && xv.CanInt():
		el.SetInt(xv.Int())
	case el.CanUint() && xv.CanInt() && xv.Int() >= 0:
		el.SetUint(uint64(xv.Int()))
	case el.CanFloat() && xv.CanFloat():
		el.SetFloat(xv.Float())
	case el.CanFloat() && xv.CanInt():
		el.SetFloat(float64(xv.Int()))
	default:
		return fmt.Errorf("%v (%T) cannot be compared with a setting of type %s", x, x, el.Type())
	}
	return nil
}
