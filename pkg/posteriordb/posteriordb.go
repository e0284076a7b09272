package posteriordb

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Layout is how a posteriordb folder is organised.
type Layout int

const (
	// Staged is one folder per posterior holding its five files under
	// their staged names (FilePosterior, FileModel, FileData, FileDraws,
	// FileInfo).
	Staged Layout = iota + 1
	// Upstream is posteriordb's own repository layout, under
	// posterior_database/ of a clone.
	Upstream
)

// String returns "staged" or "posteriordb".
func (l Layout) String() string {
	switch l {
	case Staged:
		return "staged"
	case Upstream:
		return "posteriordb"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// The roles of a posterior's files, named as in the staged layout.
const (
	// FilePosterior is the posterior's description: model, data and
	// reference names, parameter dimensions.
	FilePosterior = "posterior.json"
	// FileModel is the model's Stan code.
	FileModel = "model.stan"
	// FileData is the data, one JSON object zipped.
	FileData = "data.json.zip"
	// FileDraws is the reference draws, a JSON list of chains zipped.
	FileDraws = "reference_draws.json.zip"
	// FileInfo is how the reference draws were made and their
	// diagnostics.
	FileInfo = "reference_info.json"
)

// StagedCommit returns the posteriordb commit the staged files were copied
// from.
func StagedCommit() string { return stagedCommit }

// StagedSums returns the sha256 of every staged file keyed
// "<posterior>/<file>" (a new map, the caller's).
func StagedSums() map[string]string {
	m := make(map[string]string, len(stagedSums))
	for k, v := range stagedSums {
		m[k] = v
	}
	return m
}

// StagedNames returns the names of the posteriors the staged table lists,
// sorted.
func StagedNames() []string {
	seen := map[string]bool{}
	var out []string
	for k := range stagedSums {
		name, _, _ := strings.Cut(k, "/")
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// DB is an opened posteriordb folder.
type DB struct {
	// Root is the folder as given to Open.
	Root string
	// Layout is the layout Open found.
	Layout Layout
	// Sums are the sha256 every file read must have, keyed
	// "<posterior>/<file>" with the staged file names. They apply to the
	// posteriors they list (Checked): a file of such a posterior that
	// they do not list is an error, and a posterior they do not list at
	// all (its posterior.json has no entry) is read unverified, as a
	// clone is. Open sets the staged table (StagedSums) for the staged
	// layout, so that a folder in the staged layout may hold posteriors
	// of its own beside or instead of the thirteen staged ones, and nil,
	// no verification, for posteriordb's own; a caller may replace them.
	Sums map[string]string

	base string // the folder the layout's paths start from
}

// Open opens the posteriordb folder root: posteriordb's layout when root
// or root/posterior_database holds a posteriors folder, else the staged
// layout when some folder of root holds a posterior.json. A root that does
// not exist is an error wrapping fs.ErrNotExist.
func Open(root string) (*DB, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("posteriordb: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("posteriordb: %s is not a folder", root)
	}
	for _, base := range []string{root, filepath.Join(root, "posterior_database")} {
		if isDir(filepath.Join(base, "posteriors")) {
			return &DB{Root: root, Layout: Upstream, base: base}, nil
		}
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("posteriordb: %w", err)
	}
	for _, e := range ents {
		if isDir(filepath.Join(root, e.Name())) && isFile(filepath.Join(root, e.Name(), FilePosterior)) {
			return &DB{Root: root, Layout: Staged, Sums: StagedSums(), base: root}, nil
		}
	}
	return nil, fmt.Errorf("posteriordb: %s is neither posteriordb's layout (posteriors/ or posterior_database/posteriors/) nor the staged one (<posterior>/%s)", root, FilePosterior)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Checked reports whether the files of the posterior name are verified
// against DB.Sums: whether Sums list its posterior.json.
func (db *DB) Checked(name string) bool {
	if db.Sums == nil {
		return false
	}
	_, ok := db.Sums[name+"/"+FilePosterior]
	return ok
}

// Names returns the names of the posteriors in the folder, sorted. A
// symbolic link to a posterior's folder (staged layout) or to its
// posterior JSON (posteriordb's layout) counts as the posterior.
func (db *DB) Names() ([]string, error) {
	var out []string
	switch db.Layout {
	case Staged:
		ents, err := os.ReadDir(db.base)
		if err != nil {
			return nil, fmt.Errorf("posteriordb: %w", err)
		}
		for _, e := range ents {
			if isDir(filepath.Join(db.base, e.Name())) && isFile(filepath.Join(db.base, e.Name(), FilePosterior)) {
				out = append(out, e.Name())
			}
		}
	case Upstream:
		ents, err := os.ReadDir(filepath.Join(db.base, "posteriors"))
		if err != nil {
			return nil, fmt.Errorf("posteriordb: %w", err)
		}
		for _, e := range ents {
			if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && isFile(filepath.Join(db.base, "posteriors", e.Name())) && name != "" {
				out = append(out, name)
			}
		}
	default:
		return nil, fmt.Errorf("posteriordb: unknown layout %v", db.Layout)
	}
	sort.Strings(out)
	return out, nil
}

// Has reports whether the folder holds the posterior name.
func (db *DB) Has(name string) bool {
	if checkName("posterior", name) != nil {
		return false
	}
	return isFile(db.posteriorPath(name))
}

// checkName refuses a name that could leave the folder it names a file of.
func checkName(what, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) {
		return fmt.Errorf("%s name %q is not a file name", what, name)
	}
	return nil
}

// posteriorPath is the path of the posterior's posterior.json.
func (db *DB) posteriorPath(name string) string {
	if db.Layout == Upstream {
		return filepath.Join(db.base, "posteriors", name+".json")
	}
	return filepath.Join(db.base, name, FilePosterior)
}

// File is one file of a posterior.
type File struct {
	// Role is the file's staged name (FilePosterior, FileModel, FileData,
	// FileDraws, FileInfo).
	Role string
	// Path is where the file is.
	Path string
	// SHA256 is its hex sha256: as read by Load; the pinned one (DB.Sums)
	// or, when none is pinned, as hashed from the file by Files.
	SHA256 string
	// Pinned says SHA256 is the value DB.Sums requires (the bytes are
	// checked against it when they are read).
	Pinned bool
}

// paths returns the paths of the posterior's files by role; the
// reference's are absent when it names none.
func (db *DB) paths(name string, info *Info) (map[string]string, error) {
	if db.Layout == Staged {
		dir := filepath.Join(db.base, name)
		m := map[string]string{}
		for _, r := range []string{FilePosterior, FileModel, FileData} {
			m[r] = filepath.Join(dir, r)
		}
		if info.ReferenceName != "" {
			m[FileDraws] = filepath.Join(dir, FileDraws)
			m[FileInfo] = filepath.Join(dir, FileInfo)
		}
		return m, nil
	}
	for _, n := range [][2]string{{"model", info.ModelName}, {"data", info.DataName}} {
		if err := checkName(n[0], n[1]); err != nil {
			return nil, fmt.Errorf("posteriordb: %s: %w", db.posteriorPath(name), err)
		}
	}
	m := map[string]string{
		FilePosterior: db.posteriorPath(name),
		FileModel:     filepath.Join(db.base, "models", "stan", info.ModelName+".stan"),
		FileData:      filepath.Join(db.base, "data", "data", info.DataName+".json.zip"),
	}
	if r := info.ReferenceName; r != "" {
		if err := checkName("reference posterior", r); err != nil {
			return nil, fmt.Errorf("posteriordb: %s: %w", db.posteriorPath(name), err)
		}
		m[FileDraws] = filepath.Join(db.base, "reference_posteriors", "draws", "draws", r+".json.zip")
		m[FileInfo] = filepath.Join(db.base, "reference_posteriors", "draws", "info", r+".info.json")
	}
	return m, nil
}

// readFile reads the regular file at path, of at most maxFile bytes: a
// device, a FIFO or a larger file is refused before it is read.
func readFile(path string) ([]byte, error) {
	// Stat first: opening a FIFO would wait for a writer.
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	if fi.Size() > maxFile {
		return nil, fmt.Errorf("%s has %d bytes, more than the %d a posteriordb file may have", path, fi.Size(), maxFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err == nil && len(b) > maxFile {
		err = fmt.Errorf("%s has more than the %d bytes a posteriordb file may have", path, maxFile)
	}
	return b, err
}

// roles lists the roles in the order Files and Load give them.
var roles = []string{FilePosterior, FileModel, FileData, FileDraws, FileInfo}

// read returns the bytes of the posterior's file of the given role at
// path, checked against DB.Sums when they list the posterior (Checked),
// and their sha256.
func (db *DB) read(name, role, path string) ([]byte, string, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("posteriordb: posterior %s: %w", name, err)
	}
	h := sha256.Sum256(b)
	sum := hex.EncodeToString(h[:])
	if db.Checked(name) {
		want, ok := db.Sums[name+"/"+role]
		if !ok {
			return nil, "", fmt.Errorf("posteriordb: %s: no sha256 pinned for %s/%s in the %s layout's table", path, name, role, db.Layout)
		}
		if sum != want {
			return nil, "", fmt.Errorf("posteriordb: %s: sha256 %s, want %s (posteriordb commit %s): the file is not the staged one", path, sum, want, stagedCommit)
		}
	}
	return b, sum, nil
}

// Info is what posterior.json says of a posterior.
type Info struct {
	// Name is the posterior's name, "<data name>-<model name>".
	Name string
	// ModelName and DataName name the model and the data.
	ModelName, DataName string
	// ReferenceName names the reference posterior, "" when there is none.
	ReferenceName string
	// Dimensions are the parameters of interest with their sizes, in the
	// file's order.
	Dimensions []Dimension
	// Keywords are posteriordb's keywords of the posterior.
	Keywords []string
}

// Dimension is one parameter of interest and its number of scalars.
type Dimension struct {
	Name string
	Size int
}

// Dim returns the total number of scalars of the dimensions.
func (i *Info) Dim() int {
	n := 0
	for _, d := range i.Dimensions {
		n += d.Size
	}
	return n
}

// Info reads and checks the posterior.json of the posterior name.
func (db *DB) Info(name string) (*Info, error) {
	info, _, err := db.info(name)
	return info, err
}

func (db *DB) info(name string) (*Info, File, error) {
	if err := checkName("posterior", name); err != nil {
		return nil, File{}, fmt.Errorf("posteriordb: %w", err)
	}
	path := db.posteriorPath(name)
	b, sum, err := db.read(name, FilePosterior, path)
	if err != nil {
		return nil, File{}, err
	}
	info, err := parseInfo(path, b)
	if err != nil {
		return nil, File{}, err
	}
	if info.Name != name {
		return nil, File{}, fmt.Errorf("posteriordb: %s: name %q, want %q (the posterior's file name)", path, info.Name, name)
	}
	return info, File{Role: FilePosterior, Path: path, SHA256: sum, Pinned: db.Checked(name)}, nil
}

// parseInfo decodes and checks posterior.json.
func parseInfo(path string, b []byte) (*Info, error) {
	var raw struct {
		Name          string          `json:"name"`
		ModelName     string          `json:"model_name"`
		DataName      string          `json:"data_name"`
		ReferenceName *string         `json:"reference_posterior_name"`
		Dimensions    json.RawMessage `json:"dimensions"`
		Keywords      json.RawMessage `json:"keywords"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, jsonError(path, b, err)
	}
	info := &Info{Name: raw.Name, ModelName: raw.ModelName, DataName: raw.DataName}
	for _, f := range [][2]string{{"name", raw.Name}, {"model_name", raw.ModelName}, {"data_name", raw.DataName}} {
		if f[1] == "" {
			return nil, fmt.Errorf("posteriordb: %s: no %s", path, f[0])
		}
	}
	if raw.ReferenceName != nil {
		info.ReferenceName = *raw.ReferenceName
	}
	if len(raw.Keywords) > 0 && !bytes.Equal(raw.Keywords, []byte("null")) {
		var one string
		if json.Unmarshal(raw.Keywords, &one) == nil {
			info.Keywords = []string{one}
		} else if err := json.Unmarshal(raw.Keywords, &info.Keywords); err != nil {
			return nil, fmt.Errorf("posteriordb: %s: keywords: want a string or a list of strings: %v", path, err)
		}
	}
	if len(raw.Dimensions) == 0 || bytes.Equal(raw.Dimensions, []byte("null")) {
		return nil, fmt.Errorf("posteriordb: %s: no dimensions", path)
	}
	dims, err := parseDimensions(raw.Dimensions)
	if err != nil {
		return nil, fmt.Errorf("posteriordb: %s: dimensions: %v", path, err)
	}
	info.Dimensions = dims
	return info, nil
}

// parseDimensions decodes the dimensions object in its order: every value
// a non-negative integer, no name twice.
func parseDimensions(b []byte) ([]Dimension, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []Dimension
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := t.(string) // object keys are strings
		var n json.Number
		if err := dec.Decode(&n); err != nil {
			return nil, fmt.Errorf("%s: want an integer size: %v", k, err)
		}
		v, err := n.Int64()
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s: size %s is not a non-negative integer", k, n)
		}
		if seen[k] {
			return nil, fmt.Errorf("%s listed twice", k)
		}
		seen[k] = true
		out = append(out, Dimension{Name: k, Size: int(v)})
	}
	if len(out) == 0 {
		return nil, errors.New("empty")
	}
	return out, nil
}

// Files returns the posterior's files with their sha256: the pinned ones
// (DB.Sums) without reading the files, which Load checks as it reads them,
// and otherwise hashed from the files. posterior.json is read in either
// case, for the names of the others. A missing file is an error wrapping
// fs.ErrNotExist; the reference's files are absent from the list when the
// posterior names no reference.
func (db *DB) Files(name string) ([]File, error) {
	info, pf, err := db.info(name)
	if err != nil {
		return nil, err
	}
	paths, err := db.paths(name, info)
	if err != nil {
		return nil, err
	}
	out := []File{pf}
	for _, r := range roles[1:] {
		p, ok := paths[r]
		if !ok {
			continue
		}
		f := File{Role: r, Path: p}
		if db.Checked(name) {
			if !isFile(p) {
				if _, err := os.Stat(p); err != nil {
					return nil, fmt.Errorf("posteriordb: posterior %s: %w", name, err)
				}
				return nil, fmt.Errorf("posteriordb: posterior %s: %s is not a regular file", name, p)
			}
			sum, ok := db.Sums[name+"/"+r]
			if !ok {
				return nil, fmt.Errorf("posteriordb: %s: no sha256 pinned for %s/%s in the %s layout's table", p, name, r, db.Layout)
			}
			f.SHA256, f.Pinned = sum, true
		} else {
			_, sum, err := db.read(name, r, p)
			if err != nil {
				return nil, err
			}
			f.SHA256 = sum
		}
		out = append(out, f)
	}
	return out, nil
}

// Posterior is one posterior of the database, loaded.
type Posterior struct {
	Info
	// Code is the model's Stan code.
	Code string
	// Data are the fields of the data's JSON object.
	Data map[string]json.RawMessage
	// Reference is the reference draws with their information; nil when
	// the posterior has none.
	Reference *Reference
	// Files are the files read, with the sha256 of the bytes read.
	Files []File
}

// Load reads the posterior name: posterior.json, the Stan code, the data
// and, when posterior.json names a reference, the reference draws and
// their information, checking each file against DB.Sums when they are set
// and the draws' names against posterior.json's dimensions.
func (db *DB) Load(name string) (*Posterior, error) {
	info, pf, err := db.info(name)
	if err != nil {
		return nil, err
	}
	paths, err := db.paths(name, info)
	if err != nil {
		return nil, err
	}
	p := &Posterior{Info: *info, Files: []File{pf}}
	pinned := db.Checked(name)
	get := func(role string) ([]byte, error) {
		b, sum, err := db.read(name, role, paths[role])
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, File{Role: role, Path: paths[role], SHA256: sum, Pinned: pinned})
		return b, nil
	}
	b, err := get(FileModel)
	if err != nil {
		return nil, err
	}
	p.Code = string(b)
	if b, err = get(FileData); err != nil {
		return nil, err
	}
	if p.Data, err = parseData(paths[FileData], b); err != nil {
		return nil, err
	}
	if info.ReferenceName == "" {
		return p, nil
	}
	draws, err := get(FileDraws)
	if err != nil {
		return nil, err
	}
	if b, err = get(FileInfo); err != nil {
		return nil, err
	}
	if p.Reference, err = parseReference(info, paths[FileDraws], draws, paths[FileInfo], b); err != nil {
		return nil, err
	}
	return p, nil
}

// parseReference decodes the reference draws (the zip archive draws, read
// from drawsPath) and their information (infoJSON, from infoPath) of the
// posterior info. reference_info.json comes first: the draws are read
// into the shape it gives.
func parseReference(info *Info, drawsPath string, draws []byte, infoPath string, infoJSON []byte) (*Reference, error) {
	ri, err := parseRefInfo(infoPath, infoJSON)
	if err != nil {
		return nil, err
	}
	ref, err := parseDraws(drawsPath, draws, info, infoPath, ri)
	if err != nil {
		return nil, err
	}
	if err := ri.check(infoPath, ref); err != nil {
		return nil, err
	}
	ref.Info = ri
	return ref, nil
}

// parseData unzips the data file and decodes its JSON object.
func parseData(path string, b []byte) (map[string]json.RawMessage, error) {
	member, js, err := unzipOne(path, b)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, jsonError(path+" (member "+member+")", js, err)
	}
	if m == nil {
		return nil, fmt.Errorf("posteriordb: %s (member %s): the data is null, want a JSON object", path, member)
	}
	return m, nil
}

// IsNotExist reports whether err says that a file or folder is missing.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
