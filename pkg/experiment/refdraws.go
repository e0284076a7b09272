package experiment

import (
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/metric"
)

// Reference draws arrive iteration-major: with C chains, row i·C + c is
// draw i of chain c (hmc.Result.Set). A reference without a chain count in
// its summary is one chain.

// refChains returns the chain count a reference summary records, 1 when it
// records none or when it does not divide the n draws.
func refChains(summary []byte, n int) int {
	var s struct {
		Chains int `json:"chains"`
	}
	if len(summary) == 0 || json.Unmarshal(summary, &s) != nil || s.Chains < 1 || n%s.Chains != 0 {
		return 1
	}
	return s.Chains
}

// spreadRows returns the indices of at most m of n iteration-major rows of
// C chains, the same number from every chain, at the even stride
// k·D/per over each chain's D = n/C draws (per = ⌊m/C⌋): a subsample that
// sees every chain, unlike a stride over the pooled rows, which with a
// stride that is a multiple of C sees one chain only. All rows when m ≤ 0
// or m ≥ n. With C = 1 it is the stride i·n/m of kernel.MedianDistance.
func spreadRows(n, chains, m int) []int {
	if m <= 0 || m >= n {
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		return rows
	}
	if chains < 1 || n%chains != 0 {
		chains = 1
	}
	D := n / chains
	per := max(1, m/chains)
	rows := make([]int, 0, per*chains)
	for c := 0; c < chains; c++ {
		for k := 0; k < per; k++ {
			rows = append(rows, (k*D/per)*chains+c)
		}
	}
	return rows
}

// selectRows returns the rows of Y listed in rows, as a new matrix.
func selectRows(Y mat.Matrix, rows []int) *mat.Dense {
	_, d := Y.Dims()
	out := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		for j := 0; j < d; j++ {
			out.Set(i, j, Y.At(r, j))
		}
	}
	return out
}

// chainBandwidth is the median heuristic of the evaluation kernel on
// reference draws of C chains: the median distance between distinct pairs
// of at most maxMedianDraws rows spread over every chain (spreadRows), or 1
// when they all coincide.
func chainBandwidth(Y mat.Matrix, chains int) float64 {
	n, _ := Y.Dims()
	if h := kernel.MedianDistance(selectRows(Y, spreadRows(n, chains, maxMedianDraws)), 0); h > 0 {
		return h
	}
	return 1
}

// halves splits iteration-major draws of C chains into the first and the
// second half of every chain: draws i < ⌊D/2⌋ of each chain, and the rest.
// Both are nil when a chain has fewer than 2 draws.
func halves(Y mat.Matrix, chains int) (first, second *mat.Dense) {
	n, _ := Y.Dims()
	if chains < 1 || n%chains != 0 {
		chains = 1
	}
	D := n / chains
	if D < 2 {
		return nil, nil
	}
	var a, b []int
	for r := 0; r < n; r++ {
		if r/chains < D/2 {
			a = append(a, r)
		} else {
			b = append(b, r)
		}
	}
	return selectRows(Y, a), selectRows(Y, b)
}

// referenceFloor is the within-reference MMD² under k: the first half of
// every chain's draws (equal weights) against the second half,
//
//	MMD²(Y₁, Y₂) = (1/n₁²) Σ k(y, y′) − (2/n₁n₂) Σ k(y, z) + (1/n₂²) Σ k(z, z′),
//
// the V-statistic the mmd2 metric computes. A set of n₁ exact posterior
// draws scores about this against n₂ reference draws, so no method can be
// told apart from the posterior below it with this reference; the halves
// keep every chain on both sides, so a reference whose chains sit in
// different modes does not inflate it, and its R̂ says that instead. NaN
// when a chain has fewer than 2 draws; zero up to rounding (possibly a few
// ulps below) when the halves coincide, as for chains that never moved:
// the report draws a positive floor only.
func referenceFloor(k kernel.Radial, Y mat.Matrix, chains int) float64 {
	a, b := halves(Y, chains)
	if a == nil {
		return math.NaN()
	}
	return metric.NewMMD(k, b).MMD2(a, nil)
}

// PredictionDiag is the convergence of a reference on the BNN's
// predictions: the split-R̂ and the bulk ESS of the standardised output
// f(xₜ) at each of the inputs, summarised as the largest R̂ and the
// smallest ESS, and flagged by the HMC reference's default thresholds
// (max R̂ > 1.01 or min ESS < 400). It goes into the cells' summaries under
// reference.predictions.
type PredictionDiag struct {
	// Inputs is the number of test inputs the outputs are taken at.
	Inputs int `json:"inputs"`
	// Bandwidth is the RBF bandwidth of fmmd2 (median heuristic on the
	// reference's output vectors).
	Bandwidth float64 `json:"bandwidth"`
	// MaxRhat and MinESS summarise the per-input diagnostics; NaN
	// (written as null) with fewer than 4 draws per chain.
	MaxRhat *float64 `json:"max_rhat"`
	MinESS  *float64 `json:"min_ess"`
	// Flagged says the predictions are not to be trusted either; Reasons
	// say why.
	Flagged bool     `json:"flagged"`
	Reasons []string `json:"reasons,omitempty"`
}

// predictionDiag computes the PredictionDiag of the reference outputs F
// (draws × inputs, iteration-major over chains); bandwidth is left to the
// caller.
func predictionDiag(F *mat.Dense, chains int) PredictionDiag {
	n, T := F.Dims()
	if chains < 1 || n%chains != 0 {
		chains = 1
	}
	out := PredictionDiag{Inputs: T}
	D := n / chains
	if D < 4 || T == 0 {
		out.Flagged = true
		out.Reasons = []string{fmt.Sprintf("%d draws per chain: too few for R̂ and ESS", D)}
		return out
	}
	ch := make([]*mat.Dense, chains)
	for c := range ch {
		ch[c] = mat.NewDense(D, T, nil)
		for i := 0; i < D; i++ {
			copy(ch[c].RawRowView(i), F.RawRowView(i*chains+c))
		}
	}
	maxR, minE := math.Inf(-1), math.Inf(1)
	for _, v := range metric.SplitRhat(ch, nil) {
		maxR = math.Max(maxR, v)
	}
	for _, v := range metric.BulkESS(ch, nil) {
		minE = math.Min(minE, v)
	}
	out.MaxRhat, out.MinESS = finitePtr(maxR), finitePtr(minE)
	if !(maxR <= hmc.DefaultMaxRhat) {
		out.Flagged = true
		out.Reasons = append(out.Reasons, fmt.Sprintf("max R̂ on predictions %.4g > %g", maxR, hmc.DefaultMaxRhat))
	}
	if !(minE >= hmc.DefaultMinESS) {
		out.Flagged = true
		out.Reasons = append(out.Reasons, fmt.Sprintf("min ESS on predictions %.4g < %g", minE, hmc.DefaultMinESS))
	}
	return out
}

// finitePtr returns &v, or nil when v is not finite (JSON has no NaN).
func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
