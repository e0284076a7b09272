package data

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/internal/mirror"
)

// shared returns the staged data mirror or skips the test.
func shared(t *testing.T) string {
	t.Helper()
	dir, ok := mirror.Shared()
	if !ok {
		t.Skip("no staged data folder ../shared/data beside the module; skipping the real-data test")
	}
	return dir
}

func TestSharedVerify(t *testing.T) {
	dir := shared(t)
	if err := Verify(dir); err != nil {
		t.Fatal(err)
	}
	for _, s := range Status(dir) {
		want := StateComplete
		switch s.Name {
		case "covertype":
			want = StateSubset
		case "year-prediction-MSD":
			want = StateMissing
		}
		if s.State != want {
			t.Errorf("%s: %s, want %s", s.Name, s, want)
		}
	}
}

// colMoments returns the mean and population standard deviation of column j.
func colMoments(m *mat.Dense, j int) (mean, sd float64) {
	r, _ := m.Dims()
	col := mat.Col(make([]float64, r), j, m)
	for _, v := range col {
		mean += v
	}
	mean /= float64(r)
	for _, v := range col {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(r))
}

func TestSharedRegression(t *testing.T) {
	dir := shared(t)
	for _, d := range Datasets() {
		if d.Task != TaskRegression || d.Name == "year-prediction-MSD" {
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			r, err := LoadRegression(dir, d.Name, 0)
			if err != nil {
				t.Fatal(err)
			}
			nt, p := r.XTrain.Dims()
			ns, p2 := r.XTest.Dims()
			if nt != d.NTrain || ns != d.NTest || p != d.Features || p2 != d.Features || len(r.YTrain) != nt || len(r.YTest) != ns {
				t.Fatalf("train %d×%d, test %d×%d, y %d/%d; want %d/%d rows, %d features",
					nt, p, ns, p2, len(r.YTrain), len(r.YTest), d.NTrain, d.NTest, d.Features)
			}
			constant := 0
			for j := range p {
				m, s := colMoments(r.XTrain, j)
				if r.XStd[j] == 1 && s == 0 {
					constant++
					if m != 0 {
						t.Errorf("constant column %d has mean %v after centring", j, m)
					}
					continue
				}
				if math.Abs(m) > 1e-12 || math.Abs(s-1) > 1e-12 {
					t.Errorf("column %d: mean %v, sd %v; want 0, 1", j, m, s)
				}
			}
			if m, s := meanStdPlain(r.YTrain); math.Abs(m) > 1e-12 || math.Abs(s-1) > 1e-12 {
				t.Errorf("y: mean %v, sd %v; want 0, 1", m, s)
			}
			wantConst := 0
			if d.Name == "naval-propulsion-plant" {
				wantConst = 2
			}
			if constant != wantConst {
				t.Errorf("%d constant columns, want %d", constant, wantConst)
			}
			for _, v := range r.YTest {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatal("non-finite test target")
				}
			}
		})
	}
}

func meanStdPlain(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)))
}

func TestSharedNavalConstantColumns(t *testing.T) {
	dir := shared(t)
	r, err := LoadRegression(dir, "naval-propulsion-plant", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []int{8, 11} {
		if r.XStd[j] != 1 {
			t.Errorf("column %d: scale %v, want 1", j, r.XStd[j])
		}
		for _, m := range []*mat.Dense{r.XTrain, r.XTest} {
			if v := mat.Max(m.ColView(j)); v != 0 || mat.Min(m.ColView(j)) != 0 {
				t.Errorf("column %d not exactly 0 after centring", j)
			}
		}
	}
}

func TestSharedCovertypePrefix(t *testing.T) {
	dir := shared(t)
	c, err := LoadClassification(dir, "covertype", 1)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Subset || c.Label != "Covertype (20,000-row prefix)" || c.Rows != 20000 {
		t.Fatalf("Subset %v, Label %q, Rows %d", c.Subset, c.Label, c.Rows)
	}
	if c.Files[0].SHA256 != CovertypePrefixSHA256 {
		t.Errorf("read %+v, want the prefix", c.Files)
	}
	nt, p := c.XTrain.Dims()
	ns, _ := c.XTest.Dims()
	if nt != 16000 || ns != 4000 || p != 55 {
		t.Fatalf("train %d×%d, test %d; want 16000×55, 4000", nt, p, ns)
	}
	neg := 0
	for _, y := range append(append([]float64{}, c.YTrain...), c.YTest...) {
		if y == -1 {
			neg++
		} else if y != 1 {
			t.Fatalf("label %v", y)
		}
	}
	if neg != 6022 {
		t.Errorf("%d negatives (class 2), want 6022", neg)
	}
	for j := range 54 {
		col := c.XTrain.ColView(j)
		lo, hi := mat.Min(col), mat.Max(col)
		if lo != 0 || (hi != 1 && !(hi == 0 && c.Scale[j] == 1)) {
			t.Errorf("train column %d spans [%v, %v]", j, lo, hi)
		}
	}
	if mat.Min(c.XTrain.ColView(54)) != 1 || mat.Max(c.XTest.ColView(54)) != 1 {
		t.Error("bias column is not all ones")
	}
}
