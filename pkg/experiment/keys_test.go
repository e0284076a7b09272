package experiment

import (
	"encoding/json"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// TestSettingsKeyBytes pins the JSON encoding of decoded settings, the input
// of the cells' cache keys: the strings are those recorded in the committed
// results (key_doc.settings), so a change of the settings types that moved
// a key would show here before any cell turned stale.
func TestSettingsKeyBytes(t *testing.T) {
	for _, c := range []struct{ file, method, want string }{
		{"ablations", "weights-bq", `{"start":"map","stop":"fixed","init":"perturb","starts":1,"noise":0.5,"scale":"laplace","batch":100,"weights":"bq","weight_solver":"fista","z":"pool","pool_size":1000}`},
		{"ablations", "svgd-then-mmdfw", `{"start":"svgd","stop":"fixed","init":"svgd","starts":1,"scale":"bandwidth","batch":100,"weight_solver":"fista","svgd_iterations":1000,"svgd_step_size":0.05}`},
		{"ablations", "direction-self", `{"start":"map","stop":"fixed","init":"perturb","starts":1,"noise":0.5,"scale":"laplace","direction":"self","batch":100,"weights":"equal","weight_solver":"fista"}`},
		{"ablations", "start-prior", `{"start":"prior","stop":"fixed","init":"prior","starts":1,"scale":"bandwidth","batch":100,"weight_solver":"fista"}`},
		{"fig1a", "sgld", `{"iterations":20000,"batch":100,"schedule":"polynomial","whiten":"none","stop":"fixed","monitor":"kept"}`},
		{"fig1b", "sp", `{"nelder_mead_evals":1000,"whiten":"none","stop":"fixed","map":true}`},
		{"fig1b", "mmdfw-rff-d100", `{"start":"map","stop":"fixed","init":"perturb","starts":1,"noise":0.5,"scale":"laplace","batch":100,"weights":"equal","weight_solver":"fista","kernel":"rff","features":100}`},
		{"fig2a", "svgd", `{"iterations":2000,"step_size":0.001,"batch":100,"whiten":"none","stop":"fixed","init":"model"}`},
		{"rff", "mmdfw-exact-rff-d50", `{"start":"map","stop":"fixed","init":"perturb","starts":1,"scale":"bandwidth","direction":"exact","weights":"bq","raw_weights":true,"weight_solver":"fista","z":"exact","kernel":"rff","features":50}`},
		{"table1", "svgd", `{"iterations":1000000,"step_size":0.001,"batch":100,"record_every":10,"whiten":"none","stop":"fixed","init":"model"}`},
		{"fig2b", "reference", `{"chains":4,"warmup":400,"max_steps":128}`},
	} {
		e, err := harness.LoadFile(testRegistry, "../../experiments/"+c.file+".toml", "full")
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if c.method == "reference" {
			v = e.Reference.Settings
		}
		for _, m := range e.Methods {
			if m.Name == c.method {
				v = m.Settings
			}
		}
		b, err := json.Marshal(v)
		if err != nil || string(b) != c.want {
			t.Errorf("%s %s: settings encode as %s (%v), want %s", c.file, c.method, b, err, c.want)
		}
	}
	// The HMC init selector keeps its place between step_size and
	// init_scale, and round-trips.
	src := "id = \"k\"\ndatasets = [\"gauss2d\"]\nsplits = [1]\n[eval]\nmetrics = [\"mmd2\"]\n[methods.m]\nkind = \"hmc\"\n" +
		"settings = { min_ess = 100.0, init_scale = 0.1, init = \"prior\", step_size = 0.5, chains = 2 }\n"
	e, err := harness.Load(testRegistry, "k.toml", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(e.Methods[0].Settings)
	const want = `{"chains":2,"step_size":0.5,"init":"prior","init_scale":0.1,"min_ess":100}`
	if string(b) != want {
		t.Errorf("hmc settings encode as %s, want %s", b, want)
	}
	var back HMCConfig
	if err := json.Unmarshal(b, &back); err != nil || back.InitFrom != "prior" || back.InitScale != 0.1 || back.Chains != 2 {
		t.Errorf("round trip gave %+v (%v)", back, err)
	}
}
