package posteriordb

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/mmdfw/mmdfw/pkg/metric"
)

// sharedRoot returns the staged posteriordb folder ../shared/posteriordb
// beside the module root, or skips the test.
func sharedRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(filepath.Dir(dir), "shared", "posteriordb")
			if !isDir(p) {
				t.Skipf("no staged posteriordb folder %s beside the module; skipping the real-data test", p)
			}
			return p
		}
		if filepath.Dir(dir) == dir {
			t.Skip("no module root above the working directory; skipping the real-data test")
		}
	}
}

// TestSharedStaged loads every staged posterior (every byte checked
// against the staged table) and checks the draws against posteriordb's
// own diagnostics of them: our split-R̂ and bulk ESS of each parameter,
// computed from the decoded chains, agree with reference_info.json's,
// which they could not if names, chains or draws were mixed up.
func TestSharedStaged(t *testing.T) {
	root := sharedRoot(t)
	db, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if db.Layout != Staged || db.Sums == nil {
		t.Fatalf("layout %v, sums %v", db.Layout, db.Sums != nil)
	}
	names, err := db.Names()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, StagedNames()) || len(names) != 13 {
		t.Fatalf("names %v, staged table %v", names, StagedNames())
	}
	for _, name := range names {
		p, err := db.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		r := p.Reference
		if r == nil {
			t.Fatalf("%s: no reference", name)
		}
		if r.Chains() != 10 || r.Len() != 10000 || len(r.Names) != p.Dim() {
			t.Errorf("%s: %d chains, %d draws, %d names for dimension %d", name, r.Chains(), r.Len(), len(r.Names), p.Dim())
		}
		if len(p.Data) == 0 || p.Code == "" {
			t.Errorf("%s: no data or code", name)
		}
		d := r.Info.Diagnostics
		if d.Chains != 10 || d.Draws != 10000 || len(d.Names) != len(r.Names) {
			t.Errorf("%s: diagnostics of %d names, %d chains, %d draws", name, len(d.Names), d.Chains, d.Draws)
		}
		chains := r.ChainViews(0, r.Chains())
		rhat := metric.SplitRhat(chains, nil)
		ess := metric.BulkESS(chains, nil)
		for i, n := range d.Names {
			j := r.Index(n)
			// posteriordb's R̂ is the rank-normalised bulk R̂ (ours is the
			// larger of bulk and tail, so never smaller); its ESS is
			// rstan's bulk ESS, which ours follows.
			if !(rhat[j] >= d.Rhat[i]-1e-3 && rhat[j]-d.Rhat[i] < 0.005) {
				t.Errorf("%s %s: R̂ %.5f, posteriordb's %.5f", name, n, rhat[j], d.Rhat[i])
			}
			if math.Abs(ess[j]-d.ESSBulk[i]) > 0.02*d.ESSBulk[i] {
				t.Errorf("%s %s: bulk ESS %.1f, posteriordb's %.1f", name, n, ess[j], d.ESSBulk[i])
			}
		}
		files, err := db.Files(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range files {
			if !f.Pinned || f != p.Files[i] || f.SHA256 != stagedSums[name+"/"+f.Role] {
				t.Errorf("%s: Files %+v, Load %+v", name, f, p.Files[i])
			}
		}
	}
}

// TestSharedAsUpstream lays two staged posteriors out as posteriordb's
// repository does (symbolic links in a temporary folder, as a user's clone
// would hold the same files) and reads them back unverified.
func TestSharedAsUpstream(t *testing.T) {
	root := sharedRoot(t)
	staged, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	clone := t.TempDir()
	base := filepath.Join(clone, "posterior_database")
	for _, name := range []string{"kidiq-kidscore_momiq", "eight_schools-eight_schools_noncentered"} {
		info, err := staged.Info(name)
		if err != nil {
			t.Fatal(err)
		}
		for role, rel := range map[string]string{
			FilePosterior: filepath.Join("posteriors", name+".json"),
			FileModel:     filepath.Join("models", "stan", info.ModelName+".stan"),
			FileData:      filepath.Join("data", "data", info.DataName+".json.zip"),
			FileDraws:     filepath.Join("reference_posteriors", "draws", "draws", info.ReferenceName+".json.zip"),
			FileInfo:      filepath.Join("reference_posteriors", "draws", "info", info.ReferenceName+".info.json"),
		} {
			p := filepath.Join(base, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(root, name, role), p); err != nil {
				t.Fatal(err)
			}
		}
		up, err := Open(clone)
		if err != nil {
			t.Fatal(err)
		}
		if up.Layout != Upstream || up.Sums != nil {
			t.Fatalf("clone opened as %v", up.Layout)
		}
		a, err := staged.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := up.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Reference.Names, b.Reference.Names) || !slices.Equal(a.Reference.Bounds, b.Reference.Bounds) ||
			a.Code != b.Code || len(a.Data) != len(b.Data) {
			t.Errorf("%s differs between the layouts", name)
		}
		files, err := up.Files(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Pinned || f.SHA256 != stagedSums[name+"/"+f.Role] {
				t.Errorf("%s: clone file %+v, staged sha256 %s", name, f, stagedSums[name+"/"+f.Role])
			}
		}
	}
}

// TestSharedComparison scores the first half of a real reference's chains
// against the whole reference: it is a sample of the posterior, so its
// mean z stays within the normal range of its parameters and its MMD² is
// of the order of the floor.
func TestSharedComparison(t *testing.T) {
	root := sharedRoot(t)
	db, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.Load("kidiq-kidscore_momiq")
	if err != nil {
		t.Fatal(err)
	}
	r := p.Reference
	c, err := NewComparison(r, CompareSettings{MMDDraws: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if c.Draws != 2000 || !(c.Bandwidth > 0) {
		t.Fatalf("draws %d, bandwidth %v", c.Draws, c.Bandwidth)
	}
	f := c.Floor
	// Each half's mean is within a few MCSEs of the other's (3 parameters:
	// P(max |z| > 4) < 2·10⁻⁴); sds of halves of 5,000 near-independent
	// draws agree within 5·√(1/(2·5000)) = 5 %.
	if !(f.MaxMeanZ < 4) || !(f.MinSDRatio > 0.95) || !(f.MaxSDRatio < 1.05) || !(f.MMD2 > 0) {
		t.Errorf("floor %+v", f)
	}
	half := r.Draws.Slice(0, r.Bounds[5], 0, len(r.Names)).(*mat.Dense)
	s := c.Score(half, nil, Own{})
	if !(s.MaxMeanErr < 0.05) || !(s.MMD2 < 10*f.MMD2) {
		t.Errorf("first half against the whole: %+v (floor %+v)", s, f)
	}
}
