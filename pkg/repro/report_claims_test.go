package repro

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A claims file with an error stops repro report with exit 1 and an error
// naming the file, the line and the key, before anything is written: the
// report file keeps what it held and no figure folder is made.
func TestReportBadClaims(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "results")
	if err := os.Mkdir(res, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "R.md")
	if err := os.WriteFile(out, []byte("earlier report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	figures := filepath.Join(dir, "figures")
	for name, tc := range map[string]struct{ src, want string }{
		"direction": {
			"[claim.x]\nstatement = \"A beats B\"\nstatistic = \"cost to level\"\nscale = \"ratio\"\ndirection = \"sideways\"\n",
			":5: key claim.x.direction: unknown direction \"sideways\"",
		},
		"unknown key": {
			"[claim.x]\nstatement = \"A beats B\"\n\n[claim.x.arms]\nunder_test = \"mmdfw\"\ncomparatr = \"svgd\"\n",
			":6: key claim.x.arms.comparatr: unknown key",
		},
		"syntax": {
			"[claim.x]\nstatement = \"A beats B\n",
			":2: key claim.x.statement: ",
		},
	} {
		claims := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".toml")
		if err := os.WriteFile(claims, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stderr := runRepro(t, "report", fig1a, "--results", res, "--figures", figures, "--out", out, "--claims", claims)
		if code != 1 || !strings.Contains(stderr, "claims file: "+claims+tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", name, code, stderr, claims+tc.want)
		}
		if b, err := os.ReadFile(out); err != nil || string(b) != "earlier report\n" {
			t.Errorf("%s: the report file holds %q (%v), want it untouched", name, b, err)
		}
		if _, err := os.Stat(figures); !os.IsNotExist(err) {
			t.Errorf("%s: the figure folder was made (%v)", name, err)
		}
	}
	code, stderr := runRepro(t, "report", fig1a, "--results", res, "--out", out, "--claims", filepath.Join(dir, "none.toml"))
	if code != 1 || !strings.Contains(stderr, "none.toml: no such file") {
		t.Errorf("a missing claims file: exit %d, %q", code, stderr)
	}
}
