package model

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// runner is one parallel job split into numbered parts.
type runner interface {
	run(k int)
}

// task is part k of a job, sent to a pool goroutine.
type task struct {
	r  runner
	k  int
	wg *sync.WaitGroup
}

// The package keeps a small set of long-lived goroutines that execute the
// parts of parallel jobs. Starting goroutines per call would allocate a
// closure per part; sending a task value over a channel does not, so the
// full-data gradients allocate nothing in steady state. The goroutines block
// on the channel when idle and cost no CPU.
var (
	poolMu    sync.Mutex
	poolSize  atomic.Int64
	poolTasks = make(chan task, 256)
)

func poolWorker() {
	for t := range poolTasks {
		t.r.run(t.k)
		t.wg.Done()
	}
}

// ensurePool makes sure at least n pool goroutines exist.
func ensurePool(n int) {
	if int(poolSize.Load()) >= n {
		return
	}
	poolMu.Lock()
	for int(poolSize.Load()) < n {
		go poolWorker()
		poolSize.Add(1)
	}
	poolMu.Unlock()
}

// parallel runs r.run(0), …, r.run(n−1) and returns when all are done. Part 0
// runs on the calling goroutine. Parts must not themselves call parallel
// and wait: pool goroutines never block on other parts.
func parallel(n int, r runner, wg *sync.WaitGroup) {
	if n <= 1 {
		r.run(0)
		return
	}
	ensurePool(n - 1)
	wg.Add(n - 1)
	for k := 1; k < n; k++ {
		poolTasks <- task{r: r, k: k, wg: wg}
	}
	r.run(0)
	wg.Wait()
}

// workerCount resolves a Workers setting: w > 0 is used as is, otherwise
// runtime.GOMAXPROCS(0). It never exceeds the number of blocks of at least
// minRows rows, so small data stay on one goroutine.
func workerCount(w, rows, minRows int) int {
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	if m := rows / minRows; w > m {
		w = m
	}
	if w < 1 {
		w = 1
	}
	return w
}

// blockRange returns the rows [lo, hi) of part k of n equal parts of rows.
func blockRange(k, n, rows int) (lo, hi int) {
	return k * rows / n, (k + 1) * rows / n
}

// log1p returns log(1+x) for x ≥ 0 with a few ulps of error, through the
// hardware-assisted math.Log and Goldberg's correction
// log1p(x) = log(u)·x/(u−1), u = 1+x (exact when u−1 = x). It is faster than
// math.Log1p on the hot path of the logistic likelihood.
func log1p(x float64) float64 {
	u := 1 + x
	if u == 1 {
		return x
	}
	return math.Log(u) * x / (u - 1)
}

// logSigmoidPair returns log σ(u) and σ(−u) = 1 − σ(u) from one exponential
// e = exp(−|u|): for u ≥ 0, log σ(u) = −log1p(e) and σ(−u) = e/(1+e); for
// u < 0, log σ(u) = u − log1p(e) and σ(−u) = 1/(1+e). Neither form
// overflows or cancels.
func logSigmoidPair(u float64) (logSig, sigNeg float64) {
	if u >= 0 {
		e := math.Exp(-u)
		return -log1p(e), e / (1 + e)
	}
	e := math.Exp(u)
	return u - log1p(e), 1 / (1 + e)
}

// sigmoidNeg returns σ(−u), the second value of logSigmoidPair, with its
// operations (the same bits) and without the logarithm.
func sigmoidNeg(u float64) float64 {
	if u >= 0 {
		e := math.Exp(-u)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(u))
}

// sigmoid returns σ(u) = 1/(1+exp(−u)) without overflow.
func sigmoid(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}

// logWeightedSum returns log Σᵢ wᵢ exp(lᵢ) with the largest lᵢ (over
// nonzero weights) factored out. Weights may be negative (fully corrective
// Frank-Wolfe weights can be); when the sum is not positive the result is
// −Inf: the weighted mixture assigns the point no probability.
func logWeightedSum(w, l []float64) float64 {
	m := math.Inf(-1)
	for i, v := range l {
		if w[i] != 0 && v > m {
			m = v
		}
	}
	if math.IsInf(m, -1) {
		return m
	}
	var s float64
	for i, v := range l {
		if w[i] != 0 {
			s += w[i] * math.Exp(v-m)
		}
	}
	if !(s > 0) {
		return math.Inf(-1)
	}
	return m + math.Log(s)
}

// logGammaPriorLog returns the log density of s = log τ when τ ~ Gamma(shape
// a, rate b), Jacobian included: a log b − log Γ(a) + a s − b eˢ, and its
// derivative a − b eˢ.
func logGammaPriorLog(s, a, b float64) (lp, d float64) {
	lg, _ := math.Lgamma(a)
	t := math.Exp(s)
	return a*math.Log(b) - lg + a*s - b*t, a - b*t
}
