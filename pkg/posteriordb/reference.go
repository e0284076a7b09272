package posteriordb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Reference is a posterior's reference draws: the chains one after the
// other in the rows of one matrix, a column per parameter name.
type Reference struct {
	// Names are the parameter names ("theta[1]", "sigma"), in the order
	// of the columns of Draws (the order the first chain names them in).
	Names []string
	// Draws holds every draw in the constrained space, chain c's in rows
	// Bounds[c] ≤ i < Bounds[c+1].
	Draws *mat.Dense
	// Bounds are the chain boundaries: Bounds[0] = 0, Bounds[C] = the
	// number of draws.
	Bounds []int
	// Info is the reference's information (reference_info.json); nil for
	// a Reference built by NewReference.
	Info *ReferenceInfo
}

// NewReference returns the reference whose chains are the rows of chains
// (each draws × len(names), copied), with no Info. Every chain must have
// the same, non-zero number of rows and a column per name; names must be
// distinct and non-empty, the draws finite.
func NewReference(names []string, chains []*mat.Dense) (*Reference, error) {
	if len(chains) == 0 {
		return nil, errors.New("posteriordb: no chains")
	}
	if len(names) == 0 {
		return nil, errors.New("posteriordb: no parameter names")
	}
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" || seen[n] {
			return nil, fmt.Errorf("posteriordb: parameter name %q empty or repeated", n)
		}
		seen[n] = true
	}
	d := len(names)
	r0, _ := chains[0].Dims()
	if r0 == 0 {
		return nil, errors.New("posteriordb: chain 1 has no draws")
	}
	ref := &Reference{Names: slices.Clone(names), Draws: mat.NewDense(r0*len(chains), d, nil), Bounds: make([]int, len(chains)+1)}
	for c, ch := range chains {
		r, cols := ch.Dims()
		if cols != d {
			return nil, fmt.Errorf("posteriordb: chain %d has %d columns, want %d (one per name)", c+1, cols, d)
		}
		if r != r0 {
			return nil, fmt.Errorf("posteriordb: ragged chains: chain %d has %d draws, chain 1 has %d", c+1, r, r0)
		}
		for i := 0; i < r; i++ {
			for j := 0; j < d; j++ {
				if v := ch.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("posteriordb: chain %d, %s, draw %d: %v is not finite", c+1, names[j], i+1, v)
				}
			}
		}
		ref.Draws.Slice(c*r0, (c+1)*r0, 0, d).(*mat.Dense).Copy(ch)
		ref.Bounds[c+1] = (c + 1) * r0
	}
	return ref, nil
}

// Chains returns the number of chains.
func (r *Reference) Chains() int { return len(r.Bounds) - 1 }

// Len returns the number of draws, over all chains.
func (r *Reference) Len() int { return r.Bounds[len(r.Bounds)-1] }

// Chain returns the draws of chain c (from 0) as a view of Draws.
func (r *Reference) Chain(c int) *mat.Dense {
	_, d := r.Draws.Dims()
	return r.Draws.Slice(r.Bounds[c], r.Bounds[c+1], 0, d).(*mat.Dense)
}

// ChainViews returns the draws of chains lo ≤ c < hi as views of Draws.
func (r *Reference) ChainViews(lo, hi int) []*mat.Dense {
	out := make([]*mat.Dense, 0, hi-lo)
	for c := lo; c < hi; c++ {
		out = append(out, r.Chain(c))
	}
	return out
}

// Index returns the column of the parameter name, −1 when there is none.
func (r *Reference) Index(name string) int { return slices.Index(r.Names, name) }

// parseDraws unzips and decodes the reference draws read from path and
// checks their names against the posterior's dimensions.
func parseDraws(path string, b []byte, info *Info) (*Reference, error) {
	member, js, err := unzipOne(path, b)
	if err != nil {
		return nil, err
	}
	file := path + " (member " + member + ")"
	names, chains, err := decodeChains(file, js)
	if err != nil {
		return nil, err
	}
	ref, err := chainsReference(file, names, chains)
	if err != nil {
		return nil, err
	}
	if err := checkNames(file, ref.Names, info); err != nil {
		return nil, err
	}
	return ref, nil
}

// decodeChains reads the JSON list of chains, each an object mapping a
// name to a list of numbers, keeping the names in the order of each
// chain's object.
func decodeChains(file string, js []byte) ([][]string, []map[string][]float64, error) {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var last json.Token // the token read last, whose start errors point at
	fail := func(format string, args ...any) error {
		return fmt.Errorf("posteriordb: %s: at %s: %s", file, where(js, dec.InputOffset()-tokenLen(last)), fmt.Sprintf(format, args...))
	}
	token := func() (json.Token, error) {
		t, err := dec.Token()
		last = t
		if errors.Is(err, io.EOF) {
			return nil, fail("unexpected end of the JSON")
		}
		if err != nil {
			return nil, jsonErrorAt(file, js, err, 0)
		}
		return t, nil
	}
	expect := func(d json.Delim, what string) error {
		t, err := token()
		if err != nil {
			return err
		}
		if t != d {
			return fail("want %s, found %s", what, describe(t))
		}
		return nil
	}
	if err := expect('[', "a list of chains"); err != nil {
		return nil, nil, err
	}
	var names [][]string
	var chains []map[string][]float64
	for dec.More() {
		c := len(chains) + 1
		if err := expect('{', fmt.Sprintf("chain %d as an object of parameter draws", c)); err != nil {
			return nil, nil, err
		}
		m := map[string][]float64{}
		var order []string
		for dec.More() {
			t, err := token()
			if err != nil {
				return nil, nil, err
			}
			k := t.(string) // object keys are strings
			if _, dup := m[k]; dup {
				return nil, nil, fail("chain %d names %s twice", c, k)
			}
			if err := expect('[', fmt.Sprintf("chain %d, %s: a list of draws", c, k)); err != nil {
				return nil, nil, err
			}
			var v []float64
			for dec.More() {
				t, err := token()
				if err != nil {
					return nil, nil, err
				}
				num, ok := t.(json.Number)
				if !ok {
					return nil, nil, fail("chain %d, %s, draw %d: %s is not a number", c, k, len(v)+1, describe(t))
				}
				x, err := strconv.ParseFloat(string(num), 64)
				if err != nil || math.IsInf(x, 0) {
					return nil, nil, fail("chain %d, %s, draw %d: %s is not a finite number", c, k, len(v)+1, num)
				}
				v = append(v, x)
			}
			if _, err := token(); err != nil { // ]
				return nil, nil, err
			}
			m[k] = v
			order = append(order, k)
		}
		if _, err := token(); err != nil { // }
			return nil, nil, err
		}
		names = append(names, order)
		chains = append(chains, m)
	}
	if _, err := token(); err != nil { // ]
		return nil, nil, err
	}
	if t, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, nil, jsonErrorAt(file, js, err, 0)
		}
		return nil, nil, fail("%s after the list of chains", describe(t))
	}
	return names, chains, nil
}

// tokenLen is the length of the JSON text of the token t (of a string
// without escapes).
func tokenLen(t json.Token) int64 {
	switch v := t.(type) {
	case nil:
		return 4
	case bool:
		if v {
			return 4
		}
		return 5
	case json.Delim:
		return 1
	case json.Number:
		return int64(len(v))
	case string:
		return int64(len(v) + 2)
	}
	return 0
}

// describe names a JSON token for an error message.
func describe(t json.Token) string {
	switch v := t.(type) {
	case nil:
		return "null"
	case json.Delim:
		return "'" + v.String() + "'"
	case string:
		return strconv.Quote(v)
	default:
		return fmt.Sprint(v)
	}
}

// chainsReference checks that every chain names the first chain's
// parameters, each with the same number of draws, and assembles them.
func chainsReference(file string, names [][]string, chains []map[string][]float64) (*Reference, error) {
	if len(chains) == 0 {
		return nil, fmt.Errorf("posteriordb: %s: no chains", file)
	}
	first := names[0]
	if len(first) == 0 {
		return nil, fmt.Errorf("posteriordb: %s: chain 1 names no parameter", file)
	}
	n := len(chains[0][first[0]])
	if n == 0 {
		return nil, fmt.Errorf("posteriordb: %s: chain 1 has no draws of %s", file, first[0])
	}
	d := len(first)
	X := mat.NewDense(n*len(chains), d, nil)
	bounds := make([]int, len(chains)+1)
	for c, m := range chains {
		for _, k := range names[c] {
			if !slices.Contains(first, k) {
				return nil, fmt.Errorf("posteriordb: %s: chain %d names %s, which chain 1 does not", file, c+1, k)
			}
		}
		for j, k := range first {
			v, ok := m[k]
			if !ok {
				return nil, fmt.Errorf("posteriordb: %s: chain %d has no draws of %s", file, c+1, k)
			}
			if len(v) != n {
				return nil, fmt.Errorf("posteriordb: %s: ragged chains: chain %d has %d draws of %s, chain 1 has %d of %s", file, c+1, len(v), k, n, first[0])
			}
			for i, x := range v {
				X.Set(c*n+i, j, x)
			}
		}
		bounds[c+1] = (c + 1) * n
	}
	return &Reference{Names: slices.Clone(first), Draws: X, Bounds: bounds}, nil
}

// splitName splits "theta[1,2]" into "theta" and its indices; a name
// without brackets has none.
func splitName(name string) (string, []int, error) {
	base, rest, ok := strings.Cut(name, "[")
	if !ok {
		return name, nil, nil
	}
	inner, ok := strings.CutSuffix(rest, "]")
	if !ok || base == "" {
		return "", nil, fmt.Errorf("%q is not NAME or NAME[i,…]", name)
	}
	var idx []int
	for _, s := range strings.Split(inner, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || i < 1 {
			return "", nil, fmt.Errorf("%q: index %q is not a positive integer", name, s)
		}
		idx = append(idx, i)
	}
	return base, idx, nil
}

// checkNames checks the reference's names against the posterior's
// dimensions: every name is a parameter of the dimensions (a scalar, or
// an element within its size), and each parameter has as many names as its
// size.
func checkNames(file string, names []string, info *Info) error {
	size := map[string]int{}
	var dimNames []string
	for _, d := range info.Dimensions {
		size[d.Name] = d.Size
		dimNames = append(dimNames, fmt.Sprintf("%s %d", d.Name, d.Size))
	}
	dims := strings.Join(dimNames, ", ")
	count := map[string]int{}
	for _, n := range names {
		base, idx, err := splitName(n)
		if err != nil {
			return fmt.Errorf("posteriordb: %s: parameter %v", file, err)
		}
		s, ok := size[base]
		if !ok {
			return fmt.Errorf("posteriordb: %s: draws of %s, which is not in posterior.json's dimensions (%s)", file, n, dims)
		}
		if len(idx) == 1 && idx[0] > s {
			return fmt.Errorf("posteriordb: %s: draws of %s, but posterior.json gives %s size %d", file, n, base, s)
		}
		count[base]++
	}
	for _, d := range info.Dimensions {
		if count[d.Name] != d.Size {
			return fmt.Errorf("posteriordb: %s: %d draw names of %s, posterior.json's dimensions give it size %d", file, count[d.Name], d.Name, d.Size)
		}
	}
	return nil
}

// ReferenceInfo is reference_info.json: how the reference draws were made
// and their diagnostics.
type ReferenceInfo struct {
	// Name is the reference posterior's name.
	Name string
	// Method is the method that made the draws ("stan_sampling") and
	// Arguments its arguments (chains, iter, warmup, thin, seed,
	// control…) as JSON.
	Method    string
	Arguments map[string]json.RawMessage
	// Diagnostics are posteriordb's diagnostics of the draws.
	Diagnostics Diagnostics
	// Checks are the checks posteriordb made of the draws by name
	// ("r_hat_below_1_01": true, …).
	Checks map[string]bool
}

// Diagnostics are the diagnostics of reference_info.json, NaN where the
// file has null.
type Diagnostics struct {
	// Names are the parameter names the per-parameter values follow.
	Names []string
	// Draws and Chains are the numbers of draws and chains.
	Draws, Chains int
	// ESSBulk, ESSTail, Rhat and MeanLag1AC are per parameter: bulk and
	// tail effective sample sizes, R̂ and the mean lag-1 autocorrelation.
	ESSBulk, ESSTail, Rhat, MeanLag1AC []float64
	// Divergent and EFMI are per chain: divergent transitions and
	// E-BFMI.
	Divergent, EFMI []float64
}

// floats maps a list with nulls to NaN where null.
func floats(v []*float64) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(v))
	for i, p := range v {
		if p == nil {
			out[i] = math.NaN()
		} else {
			out[i] = *p
		}
	}
	return out
}

// parseRefInfo decodes reference_info.json and checks it against the
// draws: its parameter names are the draws' and the per-parameter lists
// have one value per name.
func parseRefInfo(path string, b []byte, ref *Reference) (*ReferenceInfo, error) {
	var raw struct {
		Name      string `json:"name"`
		Inference struct {
			Method    string                     `json:"method"`
			Arguments map[string]json.RawMessage `json:"method_arguments"`
		} `json:"inference"`
		Diagnostics struct {
			Info struct {
				Names []string `json:"names"`
			} `json:"diagnostic_information"`
			Draws      int        `json:"ndraws"`
			Chains     int        `json:"nchains"`
			ESSBulk    []*float64 `json:"effective_sample_size_bulk"`
			ESSTail    []*float64 `json:"effective_sample_size_tail"`
			Rhat       []*float64 `json:"r_hat"`
			Divergent  []*float64 `json:"divergent_transitions"`
			EFMI       []*float64 `json:"expected_fraction_of_missing_information"`
			MeanLag1AC []*float64 `json:"mean_lag1_ac"`
		} `json:"diagnostics"`
		Checks map[string]bool `json:"checks_made"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, jsonError(path, b, err)
	}
	rd := raw.Diagnostics
	ri := &ReferenceInfo{
		Name: raw.Name, Method: raw.Inference.Method, Arguments: raw.Inference.Arguments, Checks: raw.Checks,
		Diagnostics: Diagnostics{
			Names: rd.Info.Names, Draws: rd.Draws, Chains: rd.Chains,
			ESSBulk: floats(rd.ESSBulk), ESSTail: floats(rd.ESSTail), Rhat: floats(rd.Rhat), MeanLag1AC: floats(rd.MeanLag1AC),
			Divergent: floats(rd.Divergent), EFMI: floats(rd.EFMI),
		},
	}
	d := &ri.Diagnostics
	for _, n := range d.Names {
		if ref.Index(n) < 0 {
			return nil, fmt.Errorf("posteriordb: %s: diagnostics of %s, which the reference draws do not name", path, n)
		}
	}
	for _, f := range []struct {
		key string
		v   []float64
	}{{"effective_sample_size_bulk", d.ESSBulk}, {"effective_sample_size_tail", d.ESSTail}, {"r_hat", d.Rhat}, {"mean_lag1_ac", d.MeanLag1AC}} {
		if f.v != nil && len(f.v) != len(d.Names) {
			return nil, fmt.Errorf("posteriordb: %s: %s has %d values for %d names", path, f.key, len(f.v), len(d.Names))
		}
	}
	return ri, nil
}

// MaxRhat returns the largest R̂ of the diagnostics, NaN when none is
// finite.
func (d *Diagnostics) MaxRhat() float64 { return extreme(d.Rhat, math.Max, math.Inf(-1)) }

// MinESSBulk returns the smallest bulk ESS of the diagnostics, NaN when
// none is finite.
func (d *Diagnostics) MinESSBulk() float64 { return extreme(d.ESSBulk, math.Min, math.Inf(1)) }

func extreme(v []float64, f func(a, b float64) float64, start float64) float64 {
	out, found := start, false
	for _, x := range v {
		if !math.IsNaN(x) {
			out, found = f(out, x), true
		}
	}
	if !found {
		return math.NaN()
	}
	return out
}
