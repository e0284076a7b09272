package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/model"
)

// Hidden units of the BNN: 50 for every regression set, 100 for Year (the
// paper).
func hiddenUnits(name string) int {
	if name == "year-prediction-MSD" {
		return 100
	}
	return 50
}

// checksums returns the registered sha256 of every file of the dataset
// that is present under the data folder dir (the same files for every
// split). It only looks at
// names and sizes (the loader hashes every byte it reads and refuses a
// mismatch), so listing cells stays cheap. Absent data is
// harness.ErrDataMissing; a file of the wrong size is an error.
func checksums(ds *data.Dataset, dir string) (map[string]string, error) {
	st := ds.Status(dir)
	switch st.State {
	case data.StateComplete, data.StateSubset:
	case data.StateCorrupt:
		return nil, fmt.Errorf("%s: files of the wrong size: %s", st.Path, strings.Join(st.Bad, ", "))
	default:
		// The reason enters the cells' keys: it names the data folder
		// as "data", never by its path, so that the same absence gives
		// the same key on every machine and under any --data-dir.
		why := fmt.Sprintf("%s is %s under data", ds.Name, st.State)
		if len(st.Missing) > 0 && len(st.Missing) <= 4 {
			why += " (no " + strings.Join(st.Missing, ", ") + ")"
		}
		return nil, fmt.Errorf("%w: %s", harness.ErrDataMissing, why)
	}
	sums := map[string]string{}
	for _, f := range ds.Files {
		if f.Role == data.RoleDocument || (f.Role == data.RoleData && f.Name != st.DataFile) {
			continue
		}
		if _, err := os.Stat(filepath.Join(st.Path, f.Name)); err != nil {
			continue
		}
		sum, err := data.ExpectedSHA256(st.Path, f)
		if err != nil {
			sum = "unpinned" // the loader refuses the file and says why
		}
		sums[ds.Name+"/"+f.Name] = sum
	}
	return sums, nil
}

// filesKey is a short identity of the files a problem was built from.
func filesKey(files []data.FileSum) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s %s\n", f.Path, f.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// missing turns an absent file into harness.ErrDataMissing.
func missing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %v", harness.ErrDataMissing, err)
	}
	return err
}

func classificationDataset(ds *data.Dataset) harness.Dataset {
	return harness.Dataset{
		Checksums: func(split int, env *harness.Env) (map[string]string, error) { return checksums(ds, env.DataDir()) },
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			if split < 0 {
				return nil, fmt.Errorf("%s: split seed %d is negative", ds.Name, split)
			}
			c, err := ds.LoadClassification(env.DataDir(), uint64(split))
			if err != nil {
				return nil, missing(err)
			}
			cv, err := carve(env, ds.Name, split, c.Files, c.XTrain, c.XTest, c.YTrain, c.YTest)
			if err != nil {
				return nil, err
			}
			m := model.NewLogistic(cv.XTrain, cv.YTrain)
			m.Workers = env.Threads
			return &harness.Problem{Target: m, Model: NewLogisticData(
				Info{Name: ds.Name, Label: c.Label, Subset: c.Subset, Key: cv.Key},
				m, cv.XEval, cv.YEval, cv.XDev, cv.YDev,
			)}, nil
		},
	}
}

func regressionDataset(ds *data.Dataset) harness.Dataset {
	return harness.Dataset{
		Checksums: func(split int, env *harness.Env) (map[string]string, error) { return checksums(ds, env.DataDir()) },
		Load: func(ctx context.Context, split int, env *harness.Env) (*harness.Problem, error) {
			r, err := ds.LoadRegression(env.DataDir(), split)
			if err != nil {
				return nil, missing(err)
			}
			cv, err := carve(env, ds.Name, split, r.Files, r.XTrain, r.XTest, r.YTrain, r.YTest)
			if err != nil {
				return nil, err
			}
			m := model.NewBNN(cv.XTrain, cv.YTrain, hiddenUnits(ds.Name))
			m.Workers = env.Threads
			y := make([]float64, len(cv.YEval))
			for i, v := range cv.YEval {
				y[i] = r.Unscale(v)
			}
			label := r.Label
			if label == "" {
				label = ds.Name
			}
			return &harness.Problem{Target: m, Model: NewBNNData(
				Info{Name: ds.Name, Label: label, Key: cv.Key},
				m, cv.XTrain, cv.YTrain, cv.XEval, y, cv.XDev, unscaled(cv.YDev, r.Unscale), r.YMean, r.YStd,
			)}, nil
		},
	}
}

// registerData registers every dataset of pkg/data under its name, and the
// datasets experiment files declare from CSV files (CSVData).
func registerData(r *harness.Registry) {
	registerCSVData(r)
	for _, ds := range data.Datasets() {
		switch ds.Task {
		case data.TaskClassification:
			r.RegisterDataset(ds.Name, classificationDataset(ds))
		case data.TaskRegression:
			r.RegisterDataset(ds.Name, regressionDataset(ds))
		}
	}
}
