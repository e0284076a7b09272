package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// State summarises which files of a dataset are present.
type State string

// States of a dataset folder.
const (
	StateComplete State = "complete" // every file needed for the full data is present
	StateSubset   State = "subset"   // only a prefix of the data is present
	StatePartial  State = "partial"  // some, not all, required files are present
	StateCorrupt  State = "corrupt"  // a present file has the wrong size (or, for Check, the wrong sha256)
	StateMissing  State = "missing"  // no data file is present
)

// DatasetStatus is what Status reports about one dataset folder. It looks
// at presence and sizes only; Verify checks the bytes.
type DatasetStatus struct {
	Name     string
	State    State
	Rows     int    // data rows present (0 unless complete or subset)
	Expected int    // rows of the complete dataset
	Path     string // the dataset folder
	// DataFile is the data file that loaders would read ("" when missing).
	DataFile string
	// Missing lists required files absent; Bad lists files of the wrong size.
	Missing, Bad []string
}

// String formats the state as "complete 506/506" or "subset 20000/581012".
func (s DatasetStatus) String() string {
	return fmt.Sprintf("%s %d/%d", s.State, s.Rows, s.Expected)
}

// Status reports every registered dataset found, or not, under dir.
func Status(dir string) []DatasetStatus {
	out := make([]DatasetStatus, len(registry))
	for i, d := range registry {
		out[i] = d.Status(dir)
	}
	return out
}

// required reports whether f must be present for d to be complete. Of the
// data files only one form is needed, so they are handled apart; documents
// are never required.
func required(f File) bool { return f.Role == RoleSplit || f.Role == RoleMeta }

// Status reports the state of d under dir.
func (d *Dataset) Status(dir string) DatasetStatus {
	folder := filepath.Join(dir, d.Name)
	s := DatasetStatus{Name: d.Name, Expected: d.Rows, Path: folder, State: StateMissing}
	present := func(f File) bool {
		fi, err := os.Stat(filepath.Join(folder, f.Name))
		if err != nil {
			return false
		}
		if f.Size > 0 && fi.Size() != f.Size {
			s.Bad = append(s.Bad, f.Name)
		}
		return true
	}
	var data File
	found := false
	nreq, have := 0, 0
	for _, subset := range []bool{false, true} {
		for _, f := range d.Files {
			if f.Role == RoleData && f.Subset == subset && !found && present(f) {
				data, found = f, true
			}
		}
	}
	for _, f := range d.Files {
		if required(f) {
			nreq++
			if present(f) {
				have++
			} else {
				s.Missing = append(s.Missing, f.Name)
			}
		}
	}
	switch {
	case len(s.Bad) > 0:
		s.State = StateCorrupt
	case !found && have == 0:
		s.State = StateMissing
	case !found || have < nreq:
		s.State = StatePartial
		if !found {
			for _, f := range d.Files {
				if f.Role == RoleData && !f.Subset {
					s.Missing = append(s.Missing, f.Name)
				}
			}
		}
	case data.Subset:
		s.State, s.Rows = StateSubset, data.Rows
	default:
		s.State, s.Rows = StateComplete, data.Rows
	}
	if found {
		s.DataFile = data.Name
	}
	return s
}

// Verify re-hashes every registered file present under dir and returns an
// error naming each file whose sha256 differs (with both hashes), or that
// has no checksum to compare with. Absent files are not errors: Status
// reports them.
func Verify(dir string) error {
	var errs []error
	for _, d := range registry {
		if _, err := d.Verify(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Verify re-hashes the files of d present under dir; it returns how many
// matched and an error for every one that did not.
func (d *Dataset) Verify(dir string) (ok int, err error) {
	folder := filepath.Join(dir, d.Name)
	var errs []error
	for _, f := range d.Files {
		path := filepath.Join(folder, f.Name)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		want, err := ExpectedSHA256(folder, f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got, _, err := hashFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if got != want {
			errs = append(errs, &ChecksumError{Path: path, Want: want, Got: got})
			continue
		}
		ok++
	}
	return ok, errors.Join(errs...)
}
