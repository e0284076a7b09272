package data

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeFile writes content to folder/name and returns its registry entry.
func writeFile(t testing.TB, folder, name string, content []byte) File {
	t.Helper()
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, name), content, 0o644); err != nil {
		t.Fatal(err)
	}
	return File{Name: name, Size: int64(len(content)), SHA256: sha(content)}
}

// toyRegression is a 6-row PBP layout: column 1 is constant, column 3 the
// target, rows 0-3 train and 4-5 test.
var toyRegression = map[string]string{
	"data.txt": "  1.0e+00  5  2.0  10\n" +
		"  2.0e+00  5  4.0  12\n" +
		"  4.0e+00  5  1.0  11\n" +
		"  5.0e+00  5  7.0  15\n" +
		"  3.0e+00  5  3.0  9\n" +
		"  9.0e+00  5  0.5  20\n\n",
	"index_features.txt": "0\n1\n2\n",
	"index_target.txt":   "3\n",
	"n_splits.txt":       "1\n",
	"index_train_0.txt":  "0\n1\n2\n3\n",
	"index_test_0.txt":   "4\n5\n",
}

// writeRegression writes files (toyRegression overridden by edits) into a
// temporary data folder and returns it with a Dataset registering them.
func writeRegression(t testing.TB, edits map[string]string) (string, *Dataset) {
	t.Helper()
	dir := t.TempDir()
	d := &Dataset{Name: "toy", Task: TaskRegression, Rows: 6, Cols: 4, Features: 3, Splits: 1}
	for name, content := range toyRegression {
		if e, ok := edits[name]; ok {
			content = e
		}
		f := writeFile(t, filepath.Join(dir, d.Name), name, []byte(content))
		switch {
		case name == "data.txt":
			f.Role, f.Format, f.Rows = RoleData, FormatTable, d.Rows
		case strings.HasPrefix(name, "index_t") && name != "index_target.txt":
			f.Role, f.Format = RoleSplit, FormatIndex
		default:
			f.Role, f.Format = RoleMeta, FormatIndex
		}
		d.Files = append(d.Files, f)
	}
	return dir, d
}
