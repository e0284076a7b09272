package posteriordb

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestLoadToyStaged(t *testing.T) {
	files := goodFiles(t)
	db := openToy(t, files)
	if db.Layout != Staged {
		t.Fatalf("layout %v", db.Layout)
	}
	names, err := db.Names()
	if err != nil || !slices.Equal(names, []string{toyName}) {
		t.Fatalf("names %v, %v", names, err)
	}
	p, err := db.Load(toyName)
	if err != nil {
		t.Fatal(err)
	}
	if p.ModelName != "toy_model" || p.DataName != "toy_data" || p.ReferenceName != toyName || p.Dim() != 3 ||
		!slices.Equal(p.Dimensions, []Dimension{{"theta", 2}, {"sigma", 1}}) || !slices.Equal(p.Keywords, []string{"test"}) {
		t.Errorf("info %+v", p.Info)
	}
	if !strings.Contains(p.Code, "vector[2] theta") {
		t.Errorf("code %q", p.Code)
	}
	var y []int
	if err := json.Unmarshal(p.Data["y"], &y); err != nil || !slices.Equal(y, []int{1, 2, 3}) || string(p.Data["N"]) != "3" {
		t.Errorf("data %v: %v", p.Data, err)
	}
	r := p.Reference
	if !slices.Equal(r.Names, []string{"theta[1]", "theta[2]", "sigma"}) || r.Chains() != 2 || r.Len() != 12 || !slices.Equal(r.Bounds, []int{0, 6, 12}) {
		t.Fatalf("reference %v %v", r.Names, r.Bounds)
	}
	// Chain c's draw i of parameter j, as written by goodFiles.
	for c := 0; c < 2; c++ {
		ch := r.Chain(c)
		for i := 0; i < 6; i++ {
			for j := 0; j < 3; j++ {
				want := float64(j) + 0.1*float64(i) + 0.05*float64(c) + 0.01*float64(i*i%5)
				if got := ch.At(i, j); got != want {
					t.Fatalf("chain %d draw %d %s: %v, want %v", c, i, r.Names[j], got, want)
				}
			}
		}
	}
	d := r.Info.Diagnostics
	if r.Info.Method != "stan_sampling" || d.Chains != 2 || d.Draws != 12 || !r.Info.Checks["r_hat_below_1_01"] ||
		d.MaxRhat() != 1.002 || d.MinESSBulk() != 10 {
		t.Errorf("info %+v", r.Info)
	}
	// The files read, with the sha256 of their bytes.
	if len(p.Files) != 5 {
		t.Fatalf("files %+v", p.Files)
	}
	for _, f := range p.Files {
		s := sha256.Sum256(files[f.Role])
		if f.SHA256 != hex.EncodeToString(s[:]) || f.Pinned {
			t.Errorf("file %+v", f)
		}
	}
	fs, err := db.Files(toyName)
	if err != nil || len(fs) != 5 {
		t.Fatalf("Files: %v, %v", fs, err)
	}
	for i := range fs {
		if fs[i] != p.Files[i] {
			t.Errorf("Files %+v, Load %+v", fs[i], p.Files[i])
		}
	}
}

// TestUpstreamLayout reads the same posterior from posteriordb's own
// layout, at the clone's root and at its posterior_database folder, and a
// posterior that names no reference.
func TestUpstreamLayout(t *testing.T) {
	files := goodFiles(t)
	root := t.TempDir()
	writeUpstream(t, root, toyName, "toy_model", "toy_data", toyName, files)
	noref := []byte(`{"name": "toy_data-other", "model_name": "toy_model", "data_name": "toy_data",
  "reference_posterior_name": null, "keywords": "one", "dimensions": {"theta": 2}}`)
	writeUpstream(t, root, "toy_data-other", "toy_model", "toy_data", "", map[string][]byte{FilePosterior: noref})
	if err := os.WriteFile(filepath.Join(root, "posterior_database", "posteriors", ".Rhistory"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	staged := openToy(t, files)
	want, err := staged.Load(toyName)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{root, filepath.Join(root, "posterior_database")} {
		db, err := Open(r)
		if err != nil {
			t.Fatal(err)
		}
		if db.Layout != Upstream || db.Sums != nil {
			t.Fatalf("%s: layout %v, sums %v", r, db.Layout, db.Sums != nil)
		}
		names, err := db.Names()
		if err != nil || !slices.Equal(names, []string{"toy_data-other", toyName}) {
			t.Fatalf("names %v, %v", names, err)
		}
		p, err := db.Load(toyName)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Reference.Names, want.Reference.Names) || !mat.Equal(p.Reference.Draws, want.Reference.Draws) || p.Code != want.Code {
			t.Errorf("%s: not the staged posterior", r)
		}
		for i, f := range p.Files {
			if f.Role != want.Files[i].Role || f.SHA256 != want.Files[i].SHA256 {
				t.Errorf("%s: file %+v, staged %+v", r, f, want.Files[i])
			}
		}
		if !strings.HasSuffix(p.Files[3].Path, filepath.Join("reference_posteriors", "draws", "draws", toyName+".json.zip")) {
			t.Errorf("draws read from %s", p.Files[3].Path)
		}
		o, err := db.Load("toy_data-other")
		if err != nil {
			t.Fatal(err)
		}
		if o.Reference != nil || o.ReferenceName != "" || len(o.Files) != 3 || !slices.Equal(o.Keywords, []string{"one"}) {
			t.Errorf("posterior without reference: %+v", o)
		}
		if fs, err := db.Files("toy_data-other"); err != nil || len(fs) != 3 {
			t.Errorf("Files without reference: %v, %v", fs, err)
		}
	}
}

// TestErrors probes every error path with a fixture that has one defect
// and checks that the error names the file and what is wrong.
func TestErrors(t *testing.T) {
	two := func(value func(c, i, j int) float64) []byte {
		return zipOf(t, "d.json", drawsJSON([]string{"theta[1]", "theta[2]", "sigma"}, 2, 6, value))
	}
	constant := func(c, i, j int) float64 { return float64(i + j) }
	cases := []struct {
		name   string
		change map[string][]byte
		drop   string
		want   string // regexp
	}{
		{"missing model", nil, FileModel, `posterior toy_data-toy_model: stat .*toy_data-toy_model/model\.stan: no such file`},
		{"missing draws", nil, FileDraws, `stat .*reference_draws\.json\.zip: no such file`},
		{"bad zip", map[string][]byte{FileData: []byte("PK not really")}, "", `data\.json\.zip: not a zip archive`},
		{"two members", map[string][]byte{FileData: zipOf(t, "a.json", "{}", "b.json", "{}")}, "", `data\.json\.zip: 2 members \["a\.json" "b\.json"\], want one JSON file`},
		{"empty zip", map[string][]byte{FileData: zipOf(t)}, "", `data\.json\.zip: 0 members`},
		{"malformed data", map[string][]byte{FileData: zipOf(t, "toy_data.json", "{\n  \"N\": 3,\n  \"y\": [1, 2,, 3]\n}")}, "",
			`data\.json\.zip \(member toy_data\.json\): malformed JSON at line 3, column 14 \(byte 25\): invalid character ','`},
		{"data not an object", map[string][]byte{FileData: zipOf(t, "toy_data.json", "[1, 2]")}, "",
			`data\.json\.zip \(member toy_data\.json\): a JSON value of the wrong type at line 1, column 1 \(byte 0\): json: cannot unmarshal array`},
		{"data null", map[string][]byte{FileData: zipOf(t, "toy_data.json", "null")}, "", `the data is null`},
		{"malformed posterior", map[string][]byte{FilePosterior: []byte("{\"name\": \"toy_data-toy_model\"\n \"x\": 1}")}, "",
			`posterior\.json: malformed JSON at line 2, column 2 \(byte 31\): invalid character '"' after object key:value pair`},
		{"posterior name", map[string][]byte{FilePosterior: []byte(`{"name": "other", "model_name": "m", "data_name": "d", "dimensions": {"a": 1}}`)}, "",
			`posterior\.json: name "other", want "toy_data-toy_model"`},
		{"no model name", map[string][]byte{FilePosterior: []byte(`{"name": "toy_data-toy_model", "data_name": "d", "dimensions": {"a": 1}}`)}, "",
			`posterior\.json: no model_name`},
		{"no dimensions", map[string][]byte{FilePosterior: []byte(`{"name": "toy_data-toy_model", "model_name": "m", "data_name": "d"}`)}, "",
			`posterior\.json: no dimensions`},
		{"negative dimension", map[string][]byte{FilePosterior: []byte(`{"name": "toy_data-toy_model", "model_name": "m", "data_name": "d", "dimensions": {"a": -1}}`)}, "",
			`posterior\.json: dimensions: a: size -1 is not a non-negative integer`},
		{"fractional dimension", map[string][]byte{FilePosterior: []byte(`{"name": "toy_data-toy_model", "model_name": "m", "data_name": "d", "dimensions": {"a": 1.5}}`)}, "",
			`dimensions: a: size 1\.5 is not a non-negative integer`},
		{"name not in dimensions", map[string][]byte{FileDraws: zipOf(t, "d.json", drawsJSON([]string{"theta[1]", "theta[2]", "tau"}, 2, 6, constant))}, "",
			`reference_draws\.json\.zip \(member d\.json\): draws of tau, which is not in posterior\.json's dimensions \(theta 2, sigma 1\)`},
		{"index beyond size", map[string][]byte{FileDraws: zipOf(t, "d.json", drawsJSON([]string{"theta[1]", "theta[3]", "sigma"}, 2, 6, constant))}, "",
			`draws of theta\[3\], but posterior\.json gives theta size 2`},
		{"too few names", map[string][]byte{FileDraws: zipOf(t, "d.json", drawsJSON([]string{"theta[1]", "sigma"}, 2, 6, constant))}, "",
			`1 draw names of theta, posterior\.json's dimensions give it size 2`},
		{"bad index", map[string][]byte{FileDraws: zipOf(t, "d.json", drawsJSON([]string{"theta[0]", "theta[1]", "sigma"}, 2, 6, constant))}, "",
			`parameter "theta\[0\]": index "0" is not a positive integer`},
		{"ragged within a chain", map[string][]byte{FileDraws: zipOf(t, "d.json", `[{"theta[1]": [1, 2, 3], "theta[2]": [1, 2, 3], "sigma": [1, 2]}]`), FileInfo: shapeInfo(3, 1)}, "",
			`reference_draws\.json\.zip \(member d\.json\): at line 1, column 63 \(byte 62\): chain 1, sigma: 2 draws, want 3: reference_info\.json gives 1 chains of 3 draws`},
		{"ragged chains", map[string][]byte{FileDraws: zipOf(t, "d.json", `[{"theta[1]": [1, 2], "theta[2]": [1, 2], "sigma": [1, 2]}, {"theta[1]": [1], "theta[2]": [1], "sigma": [1]}]`), FileInfo: shapeInfo(4, 2)}, "",
			`chain 2, theta\[1\]: 1 draws, want 2: reference_info\.json gives 2 chains of 2 draws`},
		{"chain lacks a name", map[string][]byte{FileDraws: zipOf(t, "d.json", `[{"theta[1]": [1, 2], "theta[2]": [1, 2], "sigma": [1, 2]}, {"theta[1]": [1, 2], "sigma": [1, 2]}]`), FileInfo: shapeInfo(4, 2)}, "",
			`chain 2 has no draws of theta\[2\]`},
		{"chain adds a name", map[string][]byte{FileDraws: zipOf(t, "d.json", `[{"theta[1]": [1, 2], "theta[2]": [1, 2], "sigma": [1, 2]}, {"theta[1]": [1, 2], "theta[2]": [1, 2], "sigma": [1, 2], "tau": [1, 2]}]`), FileInfo: shapeInfo(4, 2)}, "",
			`chain 2 names tau, which chain 1 does not`},
		{"null draw", map[string][]byte{FileDraws: zipOf(t, "d.json", `[{"theta[1]": [1, null], "theta[2]": [1, 2], "sigma": [1, 2]}]`), FileInfo: shapeInfo(2, 1)}, "",
			`\(member d\.json\): at line 1, column 19 \(byte 18\): chain 1, theta\[1\], draw 2: null is not a number`},
		{"string draw", map[string][]byte{FileDraws: zipOf(t, "d.json", `[{"theta[1]": [1, 2], "theta[2]": [1, "NA"], "sigma": [1, 2]}]`), FileInfo: shapeInfo(2, 1)}, "",
			`chain 1, theta\[2\], draw 2: "NA" is not a number`},
		{"infinite draw", map[string][]byte{FileDraws: zipOf(t, "d.json", `[{"theta[1]": [1, 2], "theta[2]": [1, 2], "sigma": [1e999, 2]}]`), FileInfo: shapeInfo(2, 1)}, "",
			`at line 1, column 53 \(byte 52\): chain 1, sigma, draw 1: 1e999 is not a finite number`},
		{"not a list", map[string][]byte{FileDraws: zipOf(t, "d.json", `{"theta[1]": [1]}`), FileInfo: shapeInfo(2, 1)}, "",
			`\(member d\.json\): at line 1, column 1 \(byte 0\): want a list of chains, found '\{'`},
		{"truncated", map[string][]byte{FileDraws: zipOf(t, "d.json", `[{"theta[1]": [1, 2], "theta[2]": [1, 2], "sigma": [1, 2]}, {"theta[1]": [1, 2`), FileInfo: shapeInfo(4, 2)}, "",
			`\(member d\.json\): .*unexpected end of the JSON`},
		{"malformed draws", map[string][]byte{FileDraws: zipOf(t, "d.json", "[{\"theta[1]\": [1, 2],\n \"theta[2]\": [1 2], \"sigma\": [1, 2]}]"), FileInfo: shapeInfo(2, 1)}, "",
			`\(member d\.json\): malformed JSON at line 2, column 17 \(byte 38\): invalid character '2' after array element`},
		{"trailing data", map[string][]byte{FileDraws: zipOf(t, "d.json", `[{"theta[1]": [1, 2], "theta[2]": [1, 2], "sigma": [1, 2]}] [1]`), FileInfo: shapeInfo(2, 1)}, "",
			`'\[' after the list of chains`},
		{"no chains", map[string][]byte{FileDraws: zipOf(t, "d.json", "[\n"+strings.Repeat(" ", 30)+"]"), FileInfo: shapeInfo(2, 1)}, "",
			`reference_draws\.json\.zip \(member d\.json\): at line 2, column 31 \(byte 32\): 0 chains: reference_info\.json gives 1 chains of 2 draws`},
		{"info without shape", map[string][]byte{FileInfo: []byte(`{"diagnostics": {}}`)}, "",
			`reference_info\.json: ndraws 0 and nchains 0: want the reference draws' positive numbers of draws and chains`},
		{"ndraws not a multiple", map[string][]byte{FileInfo: shapeInfo(13, 2)}, "", `reference_info\.json: ndraws 13 is not a multiple of nchains 2`},
		{"one draw per chain", map[string][]byte{FileDraws: zipOf(t, "d.json", drawsJSON([]string{"theta[1]", "theta[2]", "sigma"}, 2, 1, constant)), FileInfo: shapeInfo(2, 2)}, "",
			`reference_info\.json: 1 draw per chain \(ndraws 2 over nchains 2\): a reference needs at least 2 per chain`},
		{"more values than the file holds", map[string][]byte{FileInfo: shapeInfo(2e9, 2)}, "",
			`reference_info\.json: ndraws 2000000000 of 3 parameters are more values than the \d+ bytes of .*reference_draws\.json\.zip \(member toy_data-toy_model\.json\) can hold`},
		{"more chains than the info", map[string][]byte{FileDraws: zipOf(t, "d.json", drawsJSON([]string{"theta[1]", "theta[2]", "sigma"}, 3, 6, constant))}, "",
			`\(member d\.json\): at line 4, column 3 \(byte \d+\): more than 2 chains: reference_info\.json gives 2 chains of 6 draws`},
		{"longer chain than the info", map[string][]byte{FileDraws: zipOf(t, "d.json", drawsJSON([]string{"theta[1]", "theta[2]", "sigma"}, 2, 7, constant))}, "",
			`chain 1, theta\[1\]: more than 6 draws: reference_info\.json gives 2 chains of 6 draws`},
		{"more names than dimensions", map[string][]byte{FileDraws: zipOf(t, "d.json", drawsJSON([]string{"theta[1]", "theta[2]", "sigma", "tau"}, 2, 6, constant))}, "",
			`chain 1 names more than the 3 parameters of posterior\.json's dimensions`},
		{"huge draw", map[string][]byte{FileDraws: zipOf(t, "d.json", drawsJSON([]string{"theta[1]", "theta[2]", "sigma"}, 2, 6, func(c, i, j int) float64 { return 1e308 }))}, "",
			`chain 1, theta\[1\], draw 1: 1e\+308 is beyond ±1e\+150, where the reference's moments could overflow`},
		{"info name", map[string][]byte{FileInfo: []byte(`{"diagnostics": {"diagnostic_information": {"names": ["tau"]}, "ndraws": 12, "nchains": 2}}`)}, "",
			`reference_info\.json: diagnostics of tau, which the reference draws do not name`},
		{"info length", map[string][]byte{FileInfo: []byte(`{"diagnostics": {"diagnostic_information": {"names": ["sigma"]}, "r_hat": [1, 1], "ndraws": 12, "nchains": 2}}`)}, "",
			`reference_info\.json: r_hat has 2 values for 1 names`},
		{"info malformed", map[string][]byte{FileInfo: []byte(`{"diagnostics": {"r_hat": ["x"]}}`)}, "",
			`reference_info\.json: a JSON value of the wrong type at line 1, column 30 \(byte 29\): json: cannot unmarshal string`},
		{"good draws", map[string][]byte{FileDraws: two(constant)}, "", ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := goodFiles(t)
			for k, v := range c.change {
				files[k] = v
			}
			delete(files, c.drop)
			db := openToy(t, files)
			_, err := db.Load(toyName)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("loaded; want an error matching %s", c.want)
			}
			if !regexp.MustCompile(c.want).MatchString(err.Error()) {
				t.Errorf("error %q\nwant match %s", err, c.want)
			}
			if c.drop != "" && !IsNotExist(err) {
				t.Errorf("missing file: %v is not fs.ErrNotExist", err)
			}
		})
	}
}

// TestChecksums checks the staged layout's verification: a file whose
// sha256 differs and one the table does not pin are refused; Files gives
// the pinned sums without reading.
func TestChecksums(t *testing.T) {
	files := goodFiles(t)
	db := openToy(t, files)
	db.Sums = map[string]string{}
	for role, b := range files {
		s := sha256.Sum256(b)
		db.Sums[toyName+"/"+role] = hex.EncodeToString(s[:])
	}
	if _, err := db.Load(toyName); err != nil {
		t.Fatal(err)
	}
	fs, err := db.Files(toyName)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if !f.Pinned || f.SHA256 != db.Sums[toyName+"/"+f.Role] {
			t.Errorf("file %+v", f)
		}
	}
	db.Sums[toyName+"/"+FileData] = strings.Repeat("0", 64)
	_, err = db.Load(toyName)
	if err == nil || !regexp.MustCompile(`data\.json\.zip: sha256 [0-9a-f]{64}, want 0{64} \(posteriordb commit [0-9a-f]{40}\): the file is not the staged one`).MatchString(err.Error()) {
		t.Errorf("changed file: %v", err)
	}
	delete(db.Sums, toyName+"/"+FileData)
	for _, f := range []func() error{
		func() error { _, err := db.Load(toyName); return err },
		func() error { _, err := db.Files(toyName); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "no sha256 pinned for toy_data-toy_model/data.json.zip in the staged layout's table") {
			t.Errorf("unpinned file: %v", err)
		}
	}
	// Opened afresh, the staged layout verifies against the staged table
	// the thirteen staged posteriors only: the toy posterior, which it
	// does not list, is read unverified, its files hashed as read.
	db2, err := Open(db.Root)
	if err != nil {
		t.Fatal(err)
	}
	if db2.Checked(toyName) || !db2.Checked("eight_schools-eight_schools_noncentered") {
		t.Errorf("Checked: toy %v, a staged posterior %v", db2.Checked(toyName), db2.Checked("eight_schools-eight_schools_noncentered"))
	}
	p, err := db2.Load(toyName)
	if err != nil {
		t.Fatalf("toy posterior in the staged layout, not in the staged table: %v", err)
	}
	fs2, err := db2.Files(toyName)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fs2 {
		if f.Pinned || p.Files[i].Pinned || len(f.SHA256) != 64 || f.SHA256 != p.Files[i].SHA256 {
			t.Errorf("unchecked file %+v, loaded %+v", f, p.Files[i])
		}
	}
}

// A symbolic link to a posterior's folder is the posterior.
func TestStagedSymlink(t *testing.T) {
	db := openToy(t, goodFiles(t))
	other := t.TempDir()
	if err := os.Symlink(filepath.Join(db.Root, toyName), filepath.Join(other, toyName)); err != nil {
		t.Fatal(err)
	}
	db2, err := Open(other)
	if err != nil {
		t.Fatalf("a folder holding a symlinked posterior: %v", err)
	}
	names, err := db2.Names()
	if err != nil || len(names) != 1 || names[0] != toyName || !db2.Has(toyName) {
		t.Fatalf("names %v, %v", names, err)
	}
	if _, err := db2.Load(toyName); err != nil {
		t.Error(err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "absent")); err == nil || !IsNotExist(err) {
		t.Errorf("absent root: %v", err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "is neither posteriordb's layout") {
		t.Errorf("empty root: %v", err)
	}
	f := filepath.Join(dir, "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(f); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("file root: %v", err)
	}
	db := openToy(t, goodFiles(t))
	for _, name := range []string{"", "..", "a/b", `a\b`} {
		if _, err := db.Load(name); err == nil || !strings.Contains(err.Error(), "is not a file name") {
			t.Errorf("Load(%q): %v", name, err)
		}
		if db.Has(name) {
			t.Errorf("Has(%q)", name)
		}
	}
	if !db.Has(toyName) || db.Has("absent") {
		t.Error("Has")
	}
	if _, err := db.Load("absent"); err == nil || !IsNotExist(err) {
		t.Errorf("absent posterior: %v", err)
	}
	// A posteriordb posterior.json naming a model outside the folder.
	root := t.TempDir()
	files := goodFiles(t)
	files[FilePosterior] = []byte(`{"name": "x", "model_name": "../m", "data_name": "d", "dimensions": {"a": 1}}`)
	writeUpstream(t, root, "x", "m", "d", "", files)
	up, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := up.Load("x"); err == nil || !strings.Contains(err.Error(), `posteriors/x.json: model name "../m" is not a file name`) {
		t.Errorf("model name with a path: %v", err)
	}
}
