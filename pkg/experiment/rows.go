package experiment

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/harness"
)

// DevelopmentRows returns the number of development rows that the SVGD
// reference code holds out of n training rows: round(0.1·n) (half to even,
// as numpy rounds), at most 500.
func DevelopmentRows(n int) int {
	return min(int(math.RoundToEven(0.1*float64(n))), 500)
}

// ValidationRows returns the indices of the training rows (of n) that rows
// holds out for evaluation, in increasing order, or nil when rows is the
// published split. RowsValidation holds out m = round(Fraction·n) rows,
// clamped to [1, n−1], chosen by a permutation seeded by rows.Seed, the
// dataset name and the split only: the same rows whatever the order of the
// cells or -j. RowsDevelopment (and RowsDevelopmentTest) hold out the last
// DevelopmentRows(n) rows.
// It fails when n is too small to leave rows on both sides.
func ValidationRows(rows harness.Rows, dataset string, split, n int) ([]int, error) {
	switch rows.Kind {
	case harness.RowsValidation:
		if n < 2 {
			return nil, fmt.Errorf("%s split %d: %d training rows are too few to carve validation rows", dataset, split, n)
		}
		m := min(max(int(math.Round(rows.Fraction*float64(n))), 1), n-1)
		h := sha256.New()
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:8], uint64(rows.Seed))
		binary.LittleEndian.PutUint64(b[8:], uint64(split))
		h.Write([]byte("validation rows\x00"))
		h.Write(b[:])
		h.Write([]byte(dataset))
		sum := h.Sum(nil)
		rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
		idx := rng.Perm(n)[:m]
		slices.Sort(idx)
		return idx, nil
	case harness.RowsDevelopment, harness.RowsDevelopmentTest:
		m := DevelopmentRows(n)
		if m < 1 || m >= n {
			return nil, fmt.Errorf("%s split %d: %d training rows are too few for development rows", dataset, split, n)
		}
		idx := make([]int, m)
		for i := range idx {
			idx[i] = n - m + i
		}
		return idx, nil
	}
	return nil, nil
}

// carved is a split whose evaluation rows may have been carved from its
// training rows.
type carved struct {
	XTrain, XEval *mat.Dense
	YTrain, YEval []float64
	// XDev and YDev are the development rows of RowsDevelopmentTest
	// (nil otherwise), evaluated by the dev_ metrics while XEval holds
	// the test rows.
	XDev *mat.Dense
	YDev []float64
	// Key is the data key of the problem (filesKey of the files, and the
	// rows selection when rows are carved), for the keys of artefacts
	// such as the MAP.
	Key string
}

// carve applies the rows selection of env to a loaded split. For the
// published split it returns the training and test rows as they are; else
// the method's rows are the training rows that are not held out (in their
// order), the evaluation rows are the held-out ones, and the test rows are
// dropped: nothing built from them reaches the problem. RowsDevelopmentTest
// carves the development rows as RowsDevelopment does into XDev and YDev and
// keeps the test rows as the evaluation rows.
func carve(env *harness.Env, dataset string, split int, files []data.FileSum, xtr, xte *mat.Dense, ytr, yte []float64) (carved, error) {
	rows := env.Rows()
	if !rows.Carves() {
		return carved{XTrain: xtr, XEval: xte, YTrain: ytr, YEval: yte, Key: filesKey(files)}, nil
	}
	n, _ := xtr.Dims()
	out, err := ValidationRows(rows, dataset, split, n)
	if err != nil {
		return carved{}, err
	}
	in := make([]int, 0, n-len(out))
	for i, j := 0, 0; i < n; i++ {
		if j < len(out) && out[j] == i {
			j++
			continue
		}
		in = append(in, i)
	}
	k := append(slices.Clone(files), data.FileSum{Path: "rows", SHA256: rows.String()})
	c := carved{Key: filesKey(k)}
	c.XTrain, c.YTrain = pickRows(xtr, ytr, in)
	c.XEval, c.YEval = pickRows(xtr, ytr, out)
	if rows.Kind == harness.RowsDevelopmentTest {
		c.XDev, c.YDev = c.XEval, c.YEval
		c.XEval, c.YEval = xte, yte
	}
	return c, nil
}

// pickRows copies the rows idx of X and y.
func pickRows(X *mat.Dense, y []float64, idx []int) (*mat.Dense, []float64) {
	_, d := X.Dims()
	Xo := mat.NewDense(len(idx), d, nil)
	yo := make([]float64, len(idx))
	for i, r := range idx {
		Xo.SetRow(i, X.RawRowView(r))
		yo[i] = y[r]
	}
	return Xo, yo
}
