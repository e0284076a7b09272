package particle_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/particle"
)

// A weighted particle set and its mean.
func ExampleSet_Mean() {
	s := particle.Set{
		X: mat.NewDense(3, 2, []float64{
			0, 0,
			1, 2,
			4, 4,
		}),
		W: []float64{0.5, 0.25, 0.25},
	}
	fmt.Println(s.Len(), s.Mean(nil))
	// Output: 3 [1.25 1.5]
}

// A recorder that keeps the number of gradient evaluations at every
// snapshot and asks the method to stop after the third: methods pass their
// snapshots through particle.Report, which turns ErrStop into stop = true.
func ExampleRecorderFunc() {
	var evals []int64
	rec := particle.RecorderFunc(func(s particle.Snapshot) error {
		evals = append(evals, s.GradEvals)
		if len(evals) == 3 {
			return particle.ErrStop
		}
		return nil
	})
	var sw particle.Stopwatch
	sw.Start()
	for step := 1; ; step++ {
		// … one step of a method …
		stop, err := particle.Report(rec, &sw, particle.Snapshot{Step: step, GradEvals: int64(100 * step)})
		if err != nil || stop {
			break
		}
	}
	fmt.Println(evals)
	// Output: [100 200 300]
}

// The weighted covariance, quantiles and effective sample size of a set.
func ExampleSet_Cov() {
	s := particle.Set{
		X: mat.NewDense(3, 2, []float64{
			0, 0,
			1, 2,
			4, 4,
		}),
		W: []float64{0.5, 0.25, 0.25},
	}
	cov := s.Cov(nil)
	fmt.Println(mat.Formatted(cov))
	fmt.Println(s.Quantiles(nil, 0, []float64{0.25, 0.5, 0.9}))
	fmt.Printf("%.3f\n", s.ESS())
	// Output:
	// ⎡2.6875   2.625⎤
	// ⎣ 2.625    2.75⎦
	// [0 0 4]
	// 2.667
}

// Kish's effective sample size: n for equal weights, fewer as the weights
// concentrate.
func ExampleSet_ESS() {
	for _, w := range [][]float64{{0.25, 0.25, 0.25, 0.25}, {0.7, 0.1, 0.1, 0.1}, {1, 0, 0, 0}} {
		fmt.Printf("%.2f\n", particle.Set{W: w}.ESS())
	}
	// Output:
	// 4.00
	// 1.92
	// 1.00
}

// Weighted quantiles of one coordinate: the median and a 90% interval.
func ExampleSet_Quantiles() {
	s := particle.Set{
		X: mat.NewDense(5, 1, []float64{3, 1, 2, 5, 4}),
		W: []float64{0.1, 0.1, 0.6, 0.1, 0.1},
	}
	fmt.Println(s.Quantiles(nil, 0, []float64{0.05, 0.5, 0.95}))
	// Output: [1 2 5]
}
