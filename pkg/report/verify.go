package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/safefile"
)

// VerifyRecord is the outcome of recomputing a seeded sample of done cells
// and comparing their CSVs with the results' (repro verify --record), as
// the report states it.
type VerifyRecord struct {
	// Revision is the commit the sample was recomputed at, Dirty whether
	// the tree had uncommitted changes, Date the day (UTC).
	Revision string `json:"revision"`
	Dirty    bool   `json:"dirty,omitempty"`
	Date     string `json:"date"`
	// Seed drew the sample of Sampled cells from Pool done cells.
	Seed    uint64 `json:"seed"`
	Sampled int    `json:"sampled"`
	Pool    int    `json:"pool"`
	// References is set when cells that read a shared reference sample
	// were in the pool (their references computed again).
	References bool `json:"references,omitempty"`
	// Identical counts the cells whose recomputed CSV equals the
	// results' but for the time column; Differ and Failed name the others
	// with the first difference or the error.
	Identical int `json:"identical"`
	// Timed counts the identical cells that are timed, compared at the
	// (step, metric) pairs both runs evaluated: their evaluation grid in
	// seconds and wall-clock budget move with the machine's speed.
	Timed  int      `json:"timed,omitempty"`
	Differ []string `json:"differ,omitempty"`
	Failed []string `json:"failed,omitempty"`
}

// VerifyFile is where repro verify --record writes the record of profile
// (base for the files' base settings) under the results directory dir: a
// folder whose name starts with a dot, which no walk over results enters.
func VerifyFile(dir, profile string) string {
	if profile == "" {
		profile = "base"
	}
	return filepath.Join(dir, ".verify", profile+".json")
}

// readVerify returns the verification records under dir by profile, none
// when there are none; a record that cannot be read is an error naming it.
func readVerify(dir string) (map[string]VerifyRecord, error) {
	ents, err := os.ReadDir(filepath.Join(dir, ".verify"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]VerifyRecord{}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		p := filepath.Join(dir, ".verify", name)
		b, err := safefile.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r VerifyRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out[strings.TrimSuffix(name, ".json")] = r
	}
	return out, nil
}

// verifyText says, per profile, how many sampled cells were recomputed
// identical at which commit; "" without a record.
func verifyText(dir string) (string, error) {
	recs, err := readVerify(dir)
	if err != nil || len(recs) == 0 {
		return "", err
	}
	profiles := make([]string, 0, len(recs))
	for p := range recs {
		profiles = append(profiles, p)
	}
	sort.Strings(profiles)
	var parts []string
	for _, p := range profiles {
		r := recs[p]
		rev := r.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev == "" {
			rev = "an unknown revision"
		}
		if r.Dirty {
			rev += " with uncommitted changes"
		}
		s := fmt.Sprintf("%s profile: %d of %d cells drawn at random (seed %d) from its %d done cells were recomputed at %s on %s and gave identical CSVs, the time column aside",
			p, r.Identical, r.Sampled, r.Seed, r.Pool, rev, r.Date)
		if r.Timed > 0 {
			s += fmt.Sprintf("; %d of them are timed and were compared at the steps both runs evaluated", r.Timed)
		}
		if !r.References {
			s += "; cells that read a shared reference sample were left out"
		}
		if n := len(r.Differ) + len(r.Failed); n > 0 {
			s += fmt.Sprintf("; %d did not (%s)", n, strings.Join(append(append([]string{}, r.Differ...), r.Failed...), "; "))
		}
		parts = append(parts, s)
	}
	return "Reproducible from the code (`repro verify`): " + strings.Join(parts, ". ") + ".", nil
}
