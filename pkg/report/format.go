package report

// The formatting and the final-value statistics every section of the
// report uses.

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Stat is a metric's final value over the splits of one dataset.
type Stat struct {
	Mean, SD float64
	// Values are the final values, one per finished split, in split order.
	Values []float64
}

// FinalStat collects the final value of metric of each cell (one per
// split) and their mean and sample sd.
func FinalStat(cells []*Cell, metric string) (Stat, bool) {
	sorted := append([]*Cell(nil), cells...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Prov.Split < sorted[j].Prov.Split })
	var s Stat
	for _, c := range sorted {
		if r, ok := c.Final(metric); ok {
			s.Values = append(s.Values, r.Value)
		}
	}
	if len(s.Values) == 0 {
		return s, false
	}
	s.Mean, s.SD = MeanSD(s.Values)
	return s, true
}

// FirstLine returns s up to its first line break.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// FormatPM formats mean ± sd with the sd to two significant digits and the
// mean to the same decimal place; the mean alone when sd is 0 or not
// finite (one split has no spread to show, and "± 0" would claim one).
func FormatPM(mean, sd float64) string {
	if !Finite(mean) {
		return "–"
	}
	if !Finite(sd) || sd == 0 {
		return strconv.FormatFloat(mean, 'g', 4, 64)
	}
	// The exponent of sd rounded to two significant digits (0.0999… → 1.0e-01).
	e := strconv.FormatFloat(sd, 'e', 1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	dec := max(0, 1-exp)
	return fmt.Sprintf("%.*f ± %.*f", dec, mean, dec, sd)
}

// FormatG formats v to four significant digits, +Inf as "never" and any
// other non-finite value as "–".
func FormatG(v float64) string {
	if math.IsInf(v, 1) {
		return "never"
	}
	if !Finite(v) {
		return "–"
	}
	return fmt.Sprintf("%.4g", v)
}

// YesNo writes b as "yes" or "no".
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
