package experiment

import (
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// TestNoneValuesInFiles: in an experiment file, -1 is the named "none" of
// burn_in, init_scale (sgld), jitter (hmc), warmup, batch, nelder_mead_evals, box and
// prior_fraction; any other negative value is an error naming the file,
// the line and the key.
func TestNoneValuesInFiles(t *testing.T) {
	for _, c := range []struct {
		kind, key string
	}{
		{KindSGLD, "burn_in"}, {KindSGLD, "init_scale"},
		{KindHMC, "warmup"}, {KindHMC, "jitter"},
		{KindSVGD, "batch"},
		{KindSP, "nelder_mead_evals"}, {KindSP, "box"}, {KindSP, "prior_fraction"},
	} {
		for _, v := range []string{"-1", "-2"} {
			if c.key == "box" || c.key == "prior_fraction" || c.key == "jitter" {
				v += ".0"
			}
			src := "id = \"v\"\ndatasets = [\"gauss2d\"]\nsplits = [1]\n[eval]\nmetrics = [\"mmd2_exact\"]\n[methods.m]\nkind = \"" + c.kind + "\"\nsettings = { " + c.key + " = " + v + " }\n"
			_, err := harness.Load(testRegistry, "v.toml", []byte(src), "")
			switch {
			case strings.HasPrefix(v, "-1") && err != nil:
				t.Errorf("%s %s = %s: %v", c.kind, c.key, v, err)
			case strings.HasPrefix(v, "-2") && (err == nil || !strings.Contains(err.Error(), "v.toml:8") || !strings.Contains(err.Error(), c.key)):
				t.Errorf("%s %s = %s: error %v, want one at v.toml:8 naming the key", c.kind, c.key, v, err)
			}
		}
	}
}
