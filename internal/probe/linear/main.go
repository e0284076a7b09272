// Command linear prints the test RMSE of two baselines of the regression
// BNN figures on one split: the constant predictor (the training mean of y)
// and ordinary least squares with an intercept on the standardised
// features (the minimum-norm solution, from the SVD of the design, so that
// constant or collinear columns, which Naval has, do no harm).
//
//	go run ./internal/probe/linear -data data -dataset naval-propulsion-plant -split 0
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
)

func main() {
	dir := flag.String("data", "data", "data folder")
	name := flag.String("dataset", "naval-propulsion-plant", "regression set")
	split := flag.Int("split", 0, "PBP split")
	flag.Parse()
	if err := run(*dir, *name, *split); err != nil {
		fmt.Fprintln(os.Stderr, "linear:", err)
		os.Exit(1)
	}
}

func run(dir, name string, split int) error {
	r, err := data.LoadRegression(dir, name, split)
	if err != nil {
		return err
	}
	n, p := r.XTrain.Dims()
	A := mat.NewDense(n, p+1, nil)
	for i := 0; i < n; i++ {
		A.Set(i, 0, 1)
		for j := 0; j < p; j++ {
			A.Set(i, j+1, r.XTrain.At(i, j))
		}
	}
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return fmt.Errorf("SVD of the %d×%d design failed", n, p+1)
	}
	sv := svd.Values(nil)
	rank := 0
	for _, s := range sv {
		if s > 1e-10*sv[0] {
			rank++
		}
	}
	var beta mat.Dense
	svd.SolveTo(&beta, mat.NewDense(n, 1, append([]float64(nil), r.YTrain...)), rank)
	nt, _ := r.XTest.Dims()
	var ssOLS, ssConst float64
	for i := 0; i < nt; i++ {
		pred := beta.At(0, 0)
		for j := 0; j < p; j++ {
			pred += beta.At(j+1, 0) * r.XTest.At(i, j)
		}
		y := r.Unscale(r.YTest[i])
		ssOLS += (r.Unscale(pred) - y) * (r.Unscale(pred) - y)
		ssConst += (r.YMean - y) * (r.YMean - y)
	}
	fmt.Printf("%s split %d: %d training rows, %d test rows, %d features (design rank %d of %d)\n",
		name, split, n, nt, p, rank, p+1)
	fmt.Printf("test RMSE: constant predictor %.6f, ordinary least squares %.6f\n",
		math.Sqrt(ssConst/float64(nt)), math.Sqrt(ssOLS/float64(nt)))
	return nil
}
