package experiment

import (
	"context"
	"encoding/gob"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/hmc"
	"github.com/mmdfw/mmdfw/pkg/kernel"
	"github.com/mmdfw/mmdfw/pkg/laplace"
	"github.com/mmdfw/mmdfw/pkg/metric"
	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/model"
	"github.com/mmdfw/mmdfw/pkg/particle"
)

// The measurements behind the MMD-FW settings of the experiment files
// (docs/DECISIONS.md, MMD-FW and Experiments). They are not part of the
// default test run:
//
//	MMDFW_MEASURE=<cache folder> MMDFW_DATA=<data> go test ./pkg/experiment -run TestMeasureTune -v -timeout 2h

// measureData is the data folder of the measurements: $MMDFW_DATA, or
// "data" when unset.
func measureData() string {
	if d := os.Getenv("MMDFW_DATA"); d != "" {
		return d
	}
	return "data"
}

func measureDir(t *testing.T) string {
	dir := os.Getenv("MMDFW_MEASURE")
	if dir == "" {
		t.Skip("measurement; set MMDFW_MEASURE to a cache folder and MMDFW_DATA")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

type cachedRef struct {
	Rows, Cols    int
	Data          []float64
	MaxRhat, MinE float64
	Reasons       []string
	Seconds       float64
}

// covertypeRef returns HMC draws of the training posterior of Covertype
// split 1, computed once and cached.
func covertypeRef(t *testing.T, dir string, m *model.Logistic, mapX []float64) *mat.Dense {
	path := filepath.Join(dir, "covertype-s1-ref.gob")
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		var c cachedRef
		if err := gob.NewDecoder(f).Decode(&c); err != nil {
			t.Fatal(err)
		}
		t.Logf("reference: %d draws, max R̂ %.3f, min ESS %.0f, %v, %.0f s", c.Rows, c.MaxRhat, c.MinE, c.Reasons, c.Seconds)
		return mat.NewDense(c.Rows, c.Cols, c.Data)
	}
	hmcRes, err := hmc.Run(context.Background(), m, particle.Start{X0: mapX}, hmc.Settings{Chains: 4, Warmup: 1000, DrawsPerChain: 500, MaxSteps: 256, InitScale: 0.1},
		rand.NewPCG(1, 2), nil)
	res, _ := hmcRes.Detail.(*hmc.Result)
	if err != nil {
		t.Fatal(err)
	}
	r, c := res.Set.X.Dims()
	cr := cachedRef{r, c, res.Set.X.RawMatrix().Data, res.MaxRhat, res.MinESS, res.Reasons, res.Seconds}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := gob.NewEncoder(f).Encode(&cr); err != nil {
		t.Fatal(err)
	}
	for _, dg := range res.Diagnostics {
		t.Logf("chain: accept %.2f, step %.3g, steps %.0f, div %d", dg.AcceptRate, dg.StepSize, dg.MeanSteps, dg.Divergences)
	}
	t.Logf("reference: %d draws, max R̂ %.3f, min ESS %.0f, %v, %.0f s", r, res.MaxRhat, res.MinESS, res.Reasons, res.Seconds)
	return res.Set.X
}

func loadCovertype(t *testing.T) (*model.Logistic, []float64) {
	c, err := data.LoadClassification(measureData(), "covertype", 1)
	if err != nil {
		t.Skip(err)
	}
	m := model.NewLogistic(c.XTrain, c.YTrain)
	r, err := laplace.FindMAP(context.Background(), m, make([]float64, m.Dim()), laplace.MAPSettings{Iterations: mapIterations, GradTol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	return m, r.X
}

// TestMeasureTuneReference computes (or loads) the Covertype reference and
// prints its scales.
func TestMeasureTuneReference(t *testing.T) {
	dir := measureDir(t)
	m, x := loadCovertype(t)
	ref := covertypeRef(t, dir, m, x)
	h := medianBandwidth(ref)
	r, d := ref.Dims()
	sd := make([]float64, d)
	for j := 0; j < d; j++ {
		var s, ss float64
		for i := 0; i < r; i++ {
			s += ref.At(i, j)
		}
		s /= float64(r)
		for i := 0; i < r; i++ {
			ss += (ref.At(i, j) - s) * (ref.At(i, j) - s)
		}
		sd[j] = math.Sqrt(ss / float64(r-1))
	}
	t.Logf("reference median h %.3g, sd per coordinate %.3g", h, sd)
}

// tuneVariant is one MMD-FW setting of a sweep.
type tuneVariant struct {
	name string
	s    mmdfw.Settings
}

// mmdAt runs MMD-FW and returns MMD² to the reference (kernel h) at the
// particle counts ns, with the run's bandwidth.
func mmdAt(t *testing.T, m *model.Logistic, start particle.Start, in mmdfw.Inputs, s mmdfw.Settings, seed uint64, ref *metric.MMD, ns []int) ([]float64, mmdfw.Result) {
	out := make([]float64, len(ns))
	rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
		for i, n := range ns {
			if sn.Step == n {
				out[i] = ref.MMD2(sn.X, sn.W)
			}
		}
		return nil
	})
	s.Inputs = in
	mmdfwRes, err := mmdfw.Run(context.Background(), m, start, s, rand.NewPCG(seed, 77), rec)
	res, _ := mmdfwRes.Detail.(*mmdfw.Result)
	if err != nil {
		t.Fatal(err)
	}
	return out, *res
}

// TestMeasureTuneCovertype sweeps the MMD-FW settings on Covertype split 1
// against the HMC reference of its training posterior.
func TestMeasureTuneCovertype(t *testing.T) {
	dir := measureDir(t)
	m, x := loadCovertype(t)
	m.Workers = 1
	refX := covertypeRef(t, dir, m, x)
	h := medianBandwidth(refX)
	ref := metric.NewMMD(kernel.RBF{H: h}, refX)
	ns := []int{1, 10, 30, 100}
	base := mmdfw.Settings{N: 100, Candidates: mmdfw.Candidates{First: mmdfw.FirstGiven}, LMO: mmdfw.LMO{Batch: 100}}
	start := particle.Start{X0: x}
	// The variants whose z is estimated from 1000 draws of the reference.
	refPool := refX.Slice(0, 1000, 0, m.Dim()).(*mat.Dense)
	poolOf := map[string]*mat.Dense{
		"laplace noise 1 step 0.1 bq pool 1000 of the reference":          refPool,
		"laplace noise 1 step 0.1 line search pool 1000 of the reference": refPool,
	}
	with := func(f func(s *mmdfw.Settings)) mmdfw.Settings { s := base; f(&s); return s }
	vs := []tuneVariant{
		{"old (prior h, noise 1·h, step 0.1·h)", base},
		{"old, h = reference's", with(func(s *mmdfw.Settings) { s.Bandwidth = h })},
		{"laplace noise 1 step 0.1", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace })},
		{"laplace noise 0.5 step 0.1", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Noise = 0.5 })},
		{"laplace noise 2 step 0.1", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Noise = 2 })},
		{"laplace noise 1 step 0.03", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.StepSize = 0.03 })},
		{"laplace noise 1 step 0.3", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.StepSize = 0.3 })},
		{"laplace noise 1 step 0.1 T 30", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.LMOSteps = 30 })},
		{"laplace noise 1 step 0.1 equal", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Weights = mmdfw.Equal })},
		{"old, equal", with(func(s *mmdfw.Settings) { s.Weights = mmdfw.Equal })},
		{"old, h = reference's, equal", with(func(s *mmdfw.Settings) { s.Bandwidth = h; s.Weights = mmdfw.Equal })},
		{"laplace noise 0.5 step 0.1 equal", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Noise = 0.5; s.Weights = mmdfw.Equal })},
		{"laplace noise 2 step 0.1 equal", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Noise = 2; s.Weights = mmdfw.Equal })},
		{"laplace noise 1 step 0.3 equal", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.StepSize = 0.3; s.Weights = mmdfw.Equal })},
		{"laplace noise 1 step 0.03 equal", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.StepSize = 0.03; s.Weights = mmdfw.Equal })},
		{"laplace noise 1 step 0.1 equal T 300", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.LMOSteps = 300; s.Weights = mmdfw.Equal })},
		{"laplace noise 1 step 0.1 classic", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Weights = mmdfw.Classic })},
		{"laplace noise 1 step 0.1 schedule", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Weights = mmdfw.Schedule })},
		{"laplace noise 1 step 0.1 bq pool 1000 of the reference", with(func(s *mmdfw.Settings) {
			s.Scale = mmdfw.ScaleLaplace
			s.Weights = mmdfw.BQ
		})},
		{"laplace noise 1 step 0.1 line search pool 1000 of the reference", with(func(s *mmdfw.Settings) {
			s.Scale = mmdfw.ScaleLaplace
			s.Weights = mmdfw.LineSearch
		})},
		{"fine: laplace noise 0.25 step 0.1 equal", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Noise = 0.25; s.Weights = mmdfw.Equal })},
		{"fine: laplace noise 0.35 step 0.1 equal", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Noise = 0.35; s.Weights = mmdfw.Equal })},
		{"fine: laplace noise 0.7 step 0.1 equal", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Noise = 0.7; s.Weights = mmdfw.Equal })},
		{"fine: laplace noise 0.5 step 0.03 equal", with(func(s *mmdfw.Settings) {
			s.Scale = mmdfw.ScaleLaplace
			s.Noise = 0.5
			s.StepSize = 0.03
			s.Weights = mmdfw.Equal
		})},
		{"fine: laplace noise 0.5 step 0.1 equal T 50", with(func(s *mmdfw.Settings) {
			s.Scale = mmdfw.ScaleLaplace
			s.Noise = 0.5
			s.LMOSteps = 50
			s.Weights = mmdfw.Equal
		})},
		{"fine: laplace noise 0.5 step 0.1 equal full-data score", with(func(s *mmdfw.Settings) {
			s.Scale = mmdfw.ScaleLaplace
			s.Noise = 0.5
			s.Batch = 0
			s.Weights = mmdfw.Equal
		})},
		{"fine: laplace noise 0.5 step 0.1 stein", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Noise = 0.5 })},
		{"fine: laplace noise 0.5 step 0.1 equal rff 500", with(func(s *mmdfw.Settings) {
			s.Scale = mmdfw.ScaleLaplace
			s.Noise = 0.5
			s.Kernel = mmdfw.RFFKernel
			s.Features = 500
			s.Weights = mmdfw.Equal
		})},
		{"fine: old rff 500 stein", with(func(s *mmdfw.Settings) { s.Kernel = mmdfw.RFFKernel; s.Features = 500 })},
		{"bw: laplace noise 0.5 equal h 4", with(func(s *mmdfw.Settings) {
			s.Scale = mmdfw.ScaleLaplace
			s.Noise = 0.5
			s.Bandwidth = 4
			s.Weights = mmdfw.Equal
		})},
		{"bw: laplace noise 0.5 equal h 6", with(func(s *mmdfw.Settings) {
			s.Scale = mmdfw.ScaleLaplace
			s.Noise = 0.5
			s.Bandwidth = 6
			s.Weights = mmdfw.Equal
		})},
		{"bw: laplace noise 0.5 equal h 12", with(func(s *mmdfw.Settings) {
			s.Scale = mmdfw.ScaleLaplace
			s.Noise = 0.5
			s.Bandwidth = 12
			s.Weights = mmdfw.Equal
		})},
		{"laplace noise 1 step 0.1 frozen", with(func(s *mmdfw.Settings) { s.Scale = mmdfw.ScaleLaplace; s.Direction = mmdfw.Frozen })},
	}
	if only := os.Getenv("MMDFW_MEASURE_ONLY"); only != "" {
		var keep []tuneVariant
		for _, v := range vs {
			if containsStr(v.name, only) {
				keep = append(keep, v)
			}
		}
		vs = keep
	}
	const seeds = 3
	t.Logf("reference h %.3g", h)
	if os.Getenv("MMDFW_MEASURE_ONLY") == "" {
		// Baseline: n independent draws of the Laplace approximation.
		l, err := laplace.Fit(context.Background(), m, x, laplace.FitSettings{})
		if err != nil {
			t.Fatal(err)
		}
		row := "| Laplace draws (i.i.d.) | |"
		for _, n := range ns {
			var lg float64
			for seed := uint64(1); seed <= seeds; seed++ {
				X := l.Sample(n, rand.New(rand.NewPCG(seed, 5)))
				lg += math.Log(ref.MMD2(X, particle.Equal(n))) / seeds
			}
			row += fmt.Sprintf(" %.3g |", math.Exp(lg))
		}
		t.Log(row)
	}
	for _, v := range vs {
		logs := make([]float64, len(ns))
		var hh, sec, ge float64
		for seed := uint64(1); seed <= seeds; seed++ {
			mm, res := mmdAt(t, m, start, mmdfw.Inputs{Pool: poolOf[v.name]}, v.s, seed, ref, ns)
			for i, x := range mm {
				logs[i] += math.Log(x) / seeds
			}
			hh += res.Bandwidth / seeds
			sec += res.Seconds / seeds
			ge += float64(res.GradEvals) / seeds
		}
		row := fmt.Sprintf("| %s | %.3g |", v.name, hh)
		for _, l := range logs {
			row += fmt.Sprintf(" %.3g |", math.Exp(l))
		}
		t.Logf("%s %.1f | %.2g |", row, sec, ge)
	}
}

// bnnValidation loads split 0 of a UCI set and carves a validation part (a
// seeded fifth of the training rows) out of its training split: the BNN is
// fitted on the rest, the test split is not touched.
func bnnValidation(t *testing.T, name string) (*model.BNN, *mat.Dense, []float64, float64, float64) {
	r, err := data.LoadRegression(measureData(), name, 0)
	if err != nil {
		t.Skip(err)
	}
	n, p := r.XTrain.Dims()
	perm := rand.New(rand.NewPCG(99, 0)).Perm(n)
	nv := n / 5
	Xf, Xv := mat.NewDense(n-nv, p, nil), mat.NewDense(nv, p, nil)
	yf, yv := make([]float64, n-nv), make([]float64, nv)
	for k, i := range perm {
		if k < nv {
			copy(Xv.RawRowView(k), r.XTrain.RawRowView(i))
			yv[k] = r.Unscale(r.YTrain[i])
		} else {
			copy(Xf.RawRowView(k-nv), r.XTrain.RawRowView(i))
			yf[k-nv] = r.YTrain[i]
		}
	}
	m := model.NewBNN(Xf, yf, hiddenUnits(name))
	m.Workers = 1
	return m, Xv, yv, r.YMean, r.YStd
}

// TestMeasureTuneBNN sweeps MMD-FW settings on the BNN of yacht and Boston
// (split 0) by the validation RMSE at n = 10, 30, 100.
func TestMeasureTuneBNN(t *testing.T) {
	measureDir(t)
	names := []string{"yacht", "bostonHousing"}
	if v := os.Getenv("MMDFW_MEASURE_DATA"); v != "" {
		names = []string{v}
	}
	ns := []int{1, 10, 30, 100}
	const seeds = 2
	for _, name := range names {
		m, Xv, yv, ym, ys := bnnValidation(t, name)
		d := m.Dim()
		mapR, err := laplace.FindMAP(context.Background(), m, func() []float64 {
			x := make([]float64, d)
			m.Init(rand.New(rand.NewPCG(5, 5)), x)
			return x
		}(), laplace.MAPSettings{Iterations: 2000})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: d = %d, MAP %s after %d iterations, %.2g gradient evaluations", name, d, mapR.Status, mapR.Iterations, float64(mapR.GradEvals))
		vs := []struct {
			name  string
			model bool // start at a BNN.Init draw, h from 200 of them
			s     mmdfw.Settings
		}{
			{"model start, schedule, noise 0.035·h, step 0.01·h (current)", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Schedule}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"model start, stein, noise 0.035·h, step 0.01·h (current)", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"model start, schedule, laplace noise 1 step 0.1", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Schedule}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace}}},
			{"model start, stein, laplace noise 1 step 0.1", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace}}},
			{"MAP start, stein, laplace noise 1 step 0.1", false, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace}}},
			{"MAP start, equal, laplace noise 1 step 0.1", false, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Equal}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace}}},
			{"MAP start, stein, noise 0.035·h step 0.01·h, h from Init", false, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"grid: model start, stein, noise 0.0175·h, step 0.01·h", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Noise: 0.0175}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"grid: model start, stein, noise 0.07·h, step 0.01·h", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Noise: 0.07}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"grid: model start, stein, noise 0.035·h, step 0.003·h", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.003}}},
			{"grid: model start, stein, noise 0.035·h, step 0.03·h", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.03}}},
			{"grid: model start, stein, noise 0.035·h, step 0.01·h, T 300", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.01, LMOSteps: 300}}},
			{"grid: model start, schedule, noise 0.035·h, step 0.003·h", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Schedule}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.003}}},
			{"grid: model start, equal, noise 0.035·h, step 0.01·h", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Equal}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"sched: model start, schedule c 10, noise 0.035·h, step 0.01·h", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Schedule, ScheduleC: 10}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"sched: model start, schedule c 30, noise 0.035·h, step 0.01·h", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Schedule, ScheduleC: 30}, Candidates: mmdfw.Candidates{Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"sched: model start, schedule c 3, pick by weight", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Schedule}, Candidates: mmdfw.Candidates{Pick: mmdfw.PickByWeight, Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"sched: model start, stein, pick by weight", true, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Pick: mmdfw.PickByWeight, Noise: 0.035}, LMO: mmdfw.LMO{StepSize: 0.01}}},
			{"MAP start, schedule, laplace noise 1 step 0.1", false, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Schedule}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace}}},
			{"MAP start, stein, laplace noise 0.5 step 0.1", false, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace, Noise: 0.5}}},
			{"MAP start, stein, laplace noise 2 step 0.1", false, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace, Noise: 2}}},
			{"MAP start, stein, laplace noise 1 step 0.03", false, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace}, LMO: mmdfw.LMO{StepSize: 0.03}}},
			{"MAP start, stein, laplace noise 1 step 0.3", false, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace}, LMO: mmdfw.LMO{StepSize: 0.3}}},
			{"MAP start, stein, laplace batch 100", false, mmdfw.Settings{Weighting: mmdfw.Weighting{Weights: mmdfw.Stein}, Candidates: mmdfw.Candidates{Scale: mmdfw.ScaleLaplace, LaplaceBatch: 100}}},
		}
		for _, v := range vs {
			if only := os.Getenv("MMDFW_MEASURE_ONLY"); only != "" && !containsStr(v.name, only) {
				continue
			}
			sum := make([]float64, len(ns))
			var hh, sec, ge float64
			for seed := uint64(1); seed <= seeds; seed++ {
				rng := rand.New(rand.NewPCG(seed, 3))
				s := v.s
				s.N, s.Batch, s.First = 100, 100, mmdfw.FirstGiven
				var start particle.Start
				if v.model {
					start.X0 = make([]float64, d)
					m.Init(rng, start.X0)
				} else {
					start.X0 = mapR.X
				}
				if s.Scale != mmdfw.ScaleLaplace {
					init := mat.NewDense(200, d, nil)
					for i := 0; i < 200; i++ {
						m.Init(rng, init.RawRowView(i))
					}
					start.Particles, s.CandidateInit = init, mmdfw.InitPerturb
				}
				rec := particle.RecorderFunc(func(sn particle.Snapshot) error {
					for i, n := range ns {
						if sn.Step == n {
							rmse, _ := m.Metrics(Xv, yv, sn.X, sn.W, ym, ys)
							sum[i] += rmse / seeds
						}
					}
					return nil
				})
				mmdfwRes, err := mmdfw.Run(context.Background(), m, start, s, rand.NewPCG(seed, 78), rec)
				res, _ := mmdfwRes.Detail.(*mmdfw.Result)
				if err != nil {
					t.Fatal(err)
				}
				hh += res.Bandwidth / seeds
				sec += res.Seconds / seeds
				ge += float64(res.GradEvals) / seeds
				if res.Laplace != nil && seed == 1 {
					lo, hi := res.Laplace.SD[0], res.Laplace.SD[0]
					for _, v := range res.Laplace.SD {
						lo, hi = math.Min(lo, v), math.Max(hi, v)
					}
					t.Logf("   Laplace: flipped %d, floored %d, sd in [%.3g, %.3g], log γ sd %.3g", res.Laplace.Flipped, res.Laplace.Floored, lo, hi, res.Laplace.SD[d-2])
				}
			}
			row := fmt.Sprintf("| %s | %s | %.3g |", name, v.name, hh)
			for _, x := range sum {
				row += fmt.Sprintf(" %.3g |", x)
			}
			t.Logf("%s %.1f | %.2g |", row, sec, ge)
		}
	}
}

func containsStr(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
