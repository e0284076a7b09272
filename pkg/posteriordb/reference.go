package posteriordb

import (
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

// maxDraw bounds the magnitude of a reference draw: beyond it the squares
// summed into a reference's moments could overflow (10,000 draws of
// 1e150² sum to 1e304 < 1.8e308).
const maxDraw = 1e150

// parseDraws unzips and decodes, streaming, the reference draws read from
// path into the shape that reference_info.json (ri, read from infoPath)
// gives them: its nchains chains of ndraws/nchains draws each, of the
// posterior's dimensions. The shape is checked against the size of the
// unzipped file before the draws' matrix is made, and the draws against
// the shape as they are read, so that memory is the matrix and a buffer.
func parseDraws(path string, b []byte, info *Info, infoPath string, ri *ReferenceInfo) (*Reference, error) {
	f, err := oneMember(path, b)
	if err != nil {
		return nil, err
	}
	file := path + " (member " + f.Name + ")"
	chains, per, err := ri.Diagnostics.shape(infoPath, info, file, f.UncompressedSize64)
	if err != nil {
		return nil, err
	}
	return decodeDraws(file, func() (io.ReadCloser, error) { return openMember(path, f) }, info, chains, per)
}

// shape returns the number of chains and of draws per chain that the
// diagnostics of reference_info.json (read from path) give, checked: at
// least 2 draws per chain, and no more values of the posterior's
// dimensions than the draws file (file, of unzipped bytes) can hold at two
// bytes a value (a digit and a comma).
func (d *Diagnostics) shape(path string, info *Info, file string, unzipped uint64) (chains, per int, err error) {
	if d.Chains < 1 || d.Draws < 1 {
		return 0, 0, fmt.Errorf("posteriordb: %s: ndraws %d and nchains %d: want the reference draws' positive numbers of draws and chains", path, d.Draws, d.Chains)
	}
	if d.Draws%d.Chains != 0 {
		return 0, 0, fmt.Errorf("posteriordb: %s: ndraws %d is not a multiple of nchains %d", path, d.Draws, d.Chains)
	}
	per = d.Draws / d.Chains
	if per < 2 {
		return 0, 0, fmt.Errorf("posteriordb: %s: %d draw per chain (ndraws %d over nchains %d): a reference needs at least 2 per chain", path, per, d.Draws, d.Chains)
	}
	dim := uint64(0)
	for _, x := range info.Dimensions {
		dim += uint64(min(x.Size, maxMember+1)) // no overflow: posterior.json is at most maxFile bytes
	}
	if dim == 0 {
		return 0, 0, fmt.Errorf("posteriordb: %s: posterior.json's dimensions give no parameter", file)
	}
	if uint64(d.Draws) > unzipped/2/dim {
		return 0, 0, fmt.Errorf("posteriordb: %s: ndraws %d of %d parameters are more values than the %d bytes of %s can hold", path, d.Draws, dim, unzipped, file)
	}
	return d.Chains, per, nil
}

// decodeDraws reads, streaming from open's reader, the JSON list of chains
// of file, each an object mapping a parameter name to its list of draws,
// into a Reference of the given chains of per draws each, with a column
// per scalar of the posterior's dimensions in the order the first chain
// names them. Every other chain names the same parameters; a chain, a
// list of draws or the list of chains longer or shorter than the shape is
// an error at its place in the file.
func decodeDraws(file string, open func() (io.ReadCloser, error), info *Info, chains, per int) (*Reference, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// loc tells the place of an offset, reading the file again: only
	// errors need it.
	loc := func(off int64) string {
		r, err := open()
		if err != nil {
			return fmt.Sprintf("byte %d", off)
		}
		defer r.Close()
		return whereIn(r, off)
	}
	dec := json.NewDecoder(rc)
	dec.UseNumber()
	var last json.Token // the token read last, whose start errors point at
	fail := func(format string, args ...any) error {
		return fmt.Errorf("posteriordb: %s: at %s: %s", file, loc(dec.InputOffset()-tokenLen(last)), fmt.Sprintf(format, args...))
	}
	token := func() (json.Token, error) {
		t, err := dec.Token()
		last = t
		var se *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF):
			return nil, fail("unexpected end of the JSON")
		case errors.As(err, &se):
			return nil, jsonErrorLoc(file, loc, err, 0)
		case err != nil:
			return nil, fmt.Errorf("posteriordb: %s: %v", file, err)
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
	shape := fmt.Sprintf("reference_info.json gives %d chains of %d draws", chains, per)
	d := info.Dim()
	X := mat.NewDense(chains*per, d, nil)
	raw := X.RawMatrix().Data
	col := map[string]int{}
	var names []string
	if err := expect('[', "a list of chains"); err != nil {
		return nil, err
	}
	c := 0
	for ; dec.More(); c++ {
		if err := expect('{', fmt.Sprintf("chain %d as an object of parameter draws", c+1)); err != nil {
			return nil, err
		}
		if c == chains {
			return nil, fail("more than %d chains: %s", chains, shape)
		}
		seen := make([]bool, len(names))
		for dec.More() {
			t, err := token()
			if err != nil {
				return nil, err
			}
			k := t.(string) // object keys are strings
			j, ok := col[k]
			switch {
			case c == 0 && ok:
				return nil, fail("chain 1 names %s twice", k)
			case c == 0 && len(names) == d:
				return nil, fail("chain 1 names more than the %d parameters of posterior.json's dimensions", d)
			case c == 0:
				j = len(names)
				col[k] = j
				names = append(names, k)
			case !ok:
				return nil, fail("chain %d names %s, which chain 1 does not", c+1, k)
			case seen[j]:
				return nil, fail("chain %d names %s twice", c+1, k)
			default:
				seen[j] = true
			}
			if err := expect('[', fmt.Sprintf("chain %d, %s: a list of draws", c+1, k)); err != nil {
				return nil, err
			}
			i := 0
			for ; dec.More(); i++ {
				t, err := token()
				if err != nil {
					return nil, err
				}
				num, ok := t.(json.Number)
				if !ok {
					return nil, fail("chain %d, %s, draw %d: %s is not a number", c+1, k, i+1, describe(t))
				}
				if i == per {
					return nil, fail("chain %d, %s: more than %d draws: %s", c+1, k, per, shape)
				}
				x, err := strconv.ParseFloat(string(num), 64)
				if err != nil || math.IsInf(x, 0) {
					return nil, fail("chain %d, %s, draw %d: %s is not a finite number", c+1, k, i+1, num)
				}
				if math.Abs(x) > maxDraw {
					return nil, fail("chain %d, %s, draw %d: %s is beyond ±%g, where the reference's moments could overflow", c+1, k, i+1, num, maxDraw)
				}
				raw[(c*per+i)*d+j] = x
			}
			if _, err := token(); err != nil { // ]
				return nil, err
			}
			if i != per {
				return nil, fail("chain %d, %s: %d draws, want %d: %s", c+1, k, i, per, shape)
			}
		}
		if _, err := token(); err != nil { // }
			return nil, err
		}
		if c == 0 {
			if len(names) == 0 {
				return nil, fail("chain 1 names no parameter")
			}
			if err := checkNames(file, names, info); err != nil {
				return nil, err
			}
		}
		for j, ok := range seen {
			if !ok {
				return nil, fail("chain %d has no draws of %s", c+1, names[j])
			}
		}
	}
	if _, err := token(); err != nil { // ]
		return nil, err
	}
	if c != chains {
		return nil, fail("%d chains: %s", c, shape)
	}
	if t, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, jsonErrorLoc(file, loc, err, 0)
		}
		return nil, fail("%s after the list of chains", describe(t))
	}
	bounds := make([]int, chains+1)
	for c := range bounds {
		bounds[c] = c * per
	}
	return &Reference{Names: names, Draws: X, Bounds: bounds}, nil
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

// parseRefInfo decodes reference_info.json.
func parseRefInfo(path string, b []byte) (*ReferenceInfo, error) {
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
	return ri, nil
}

// check checks reference_info.json, read from path, against the draws: its
// parameter names are the draws' and the per-parameter lists have one
// value per name.
func (ri *ReferenceInfo) check(path string, ref *Reference) error {
	d := &ri.Diagnostics
	for _, n := range d.Names {
		if ref.Index(n) < 0 {
			return fmt.Errorf("posteriordb: %s: diagnostics of %s, which the reference draws do not name", path, n)
		}
	}
	for _, f := range []struct {
		key string
		v   []float64
	}{{"effective_sample_size_bulk", d.ESSBulk}, {"effective_sample_size_tail", d.ESSTail}, {"r_hat", d.Rhat}, {"mean_lag1_ac", d.MeanLag1AC}} {
		if f.v != nil && len(f.v) != len(d.Names) {
			return fmt.Errorf("posteriordb: %s: %s has %d values for %d names", path, f.key, len(f.v), len(d.Names))
		}
	}
	return nil
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
