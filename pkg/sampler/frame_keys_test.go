package sampler_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/mmdfw/mmdfw/pkg/mmdfw"
	"github.com/mmdfw/mmdfw/pkg/sampler"
	"github.com/mmdfw/mmdfw/pkg/setting"
	"github.com/mmdfw/mmdfw/pkg/sgld"
	"github.com/mmdfw/mmdfw/pkg/sp"
	"github.com/mmdfw/mmdfw/pkg/svgd"
)

// TestFrameKeepsKeys holds the four Settings that embed sampler.Frame (and
// MMD-FW's, that groups its own settings by concern) to the encodings they
// had when each declared every field itself: a
// cell's cache key hashes its settings' JSON, so the bytes must not move
// (the strings were written by the code before the frame; SVGD's step and
// SGLD's jitter have since been renamed step_size and init_scale, the
// committed cells rekeyed with repro rekey), and an experiment file's flat
// keys decode into the embedded fields.
func TestFrameKeepsKeys(t *testing.T) {
	for _, c := range []struct {
		v    any
		json string
		toml string
	}{
		{mmdfw.Settings{N: 30, Frame: sampler.Frame{Stop: "ksd", KSDSize: 500}, Candidates: mmdfw.Candidates{First: mmdfw.FirstMAP, Scale: mmdfw.ScaleTarget}, Weighting: mmdfw.Weighting{WeightSolver: mmdfw.SolverPairwise}, KernelSpec: mmdfw.KernelSpec{Bandwidth: 0.5}},
			`{"stop":"ksd","ksd_size":500,"start":"map","scale":"target","weight_solver":"pairwise","bandwidth":0.5}`,
			"stop = \"ksd\"\nksd_size = 500\nstart = \"map\"\nscale = \"target\"\nweight_solver = \"pairwise\"\nbandwidth = 0.5\n"},
		{mmdfw.Settings{N: 30, Frame: sampler.Frame{Stop: "ksd", KSDSize: 500},
			Candidates: mmdfw.Candidates{First: mmdfw.FirstMAP, CandidateInit: mmdfw.InitLaplace, Starts: 3, Noise: 0.2, Scale: mmdfw.ScaleTarget},
			LMO:        mmdfw.LMO{LMOSteps: 40, StepSize: 0.3, Batch: 10},
			Weighting:  mmdfw.Weighting{Weights: mmdfw.Stein, Jitter: 1e-9, WeightSolver: mmdfw.SolverPairwise, WeightTol: 1e-7},
			KernelSpec: mmdfw.KernelSpec{Z: mmdfw.ZPool, PoolSize: 300, Kernel: mmdfw.RFFKernel, Features: 100, Bandwidth: 0.5},
			MAPSearch:  mmdfw.MAPSearch{MAPIterations: 50, MAPNewtonTol: 0.5}},
			`{"stop":"ksd","ksd_size":500,"start":"map","init":"laplace","starts":3,"noise":0.2,"scale":"target","lmo_steps":40,"step_size":0.3,"batch":10,"weights":"stein","jitter":1e-9,"weight_solver":"pairwise","weight_tol":1e-7,"z":"pool","pool_size":300,"kernel":"rff","features":100,"bandwidth":0.5,"map_iterations":50,"map_newton_tol":0.5}`,
			"stop = \"ksd\"\nksd_size = 500\nstart = \"map\"\ninit = \"laplace\"\nstarts = 3\nnoise = 0.2\nscale = \"target\"\nlmo_steps = 40\nstep_size = 0.3\nbatch = 10\nweights = \"stein\"\njitter = 1e-9\nweight_solver = \"pairwise\"\nweight_tol = 1e-7\nz = \"pool\"\npool_size = 300\nkernel = \"rff\"\nfeatures = 100\nbandwidth = 0.5\nmap_iterations = 50\nmap_newton_tol = 0.5\n"},
		{sp.Settings{N: 30, Candidates: 20, C: 2, Frame: sampler.Frame{Whiten: "laplace", Stop: "ksd", KSDSize: 200}},
			`{"candidates":20,"c":2,"whiten":"laplace","stop":"ksd","ksd_size":200}`,
			"candidates = 20\nc = 2.0\nwhiten = \"laplace\"\nstop = \"ksd\"\nksd_size = 200\n"},
		{svgd.Settings{N: 30, Iterations: 500, StepSize: 0.1, BandwidthRule: "particles", InitScale: 0.5, Frame: sampler.Frame{Whiten: "laplace", Stop: "plateau", Workers: 3}, StopTol: 0.02},
			`{"iterations":500,"step_size":0.1,"bandwidth_rule":"particles","init_scale":0.5,"whiten":"laplace","stop":"plateau","stop_tol":0.02}`,
			"iterations = 500\nstep_size = 0.1\nbandwidth_rule = \"particles\"\ninit_scale = 0.5\nwhiten = \"laplace\"\nstop = \"plateau\"\nstop_tol = 0.02\n"},
		{sgld.Settings{Iterations: 900, Chains: 4, InitScale: 0.5, Frame: sampler.Frame{Whiten: "laplace", Stop: "converged", Workers: 2}, MaxRhat: 1.05, MinESS: 100, Monitor: "all", RecordEvery: 10},
			`{"iterations":900,"chains":4,"init_scale":0.5,"whiten":"laplace","stop":"converged","max_rhat":1.05,"min_ess":100,"monitor":"all","record_every":10}`,
			"iterations = 900\nchains = 4\ninit_scale = 0.5\nwhiten = \"laplace\"\nstop = \"converged\"\nmax_rhat = 1.05\nmin_ess = 100.0\nmonitor = \"all\"\nrecord_every = 10\n"},
	} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.json {
			t.Errorf("%T encodes\n %s\nwant\n %s", c.v, b, c.json)
		}
		// The file's keys decode into the embedded frame, none left over.
		dst := reflect.New(reflect.TypeOf(c.v))
		md, err := toml.Decode(c.toml, dst.Interface())
		if err != nil {
			t.Fatal(err)
		}
		if u := md.Undecoded(); len(u) > 0 {
			t.Errorf("%T: keys %v not decoded", c.v, u)
		}
		want := reflect.ValueOf(c.v)
		got := dst.Elem()
		// N and Workers have no key.
		for _, f := range []string{"N"} {
			if fv := got.FieldByName(f); fv.IsValid() {
				fv.Set(want.FieldByName(f))
			}
		}
		got.FieldByName("Frame").FieldByName("Workers").Set(want.FieldByName("Frame").FieldByName("Workers"))
		if !reflect.DeepEqual(got.Interface(), c.v) {
			t.Errorf("%T decodes to\n %+v\nwant\n %+v", c.v, got.Interface(), c.v)
		}
	}
}

// The frame's rules: each method refuses what it does not take, names the
// key, and fills its defaults.
func TestFrameRules(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{mmdfw.Settings{Frame: sampler.Frame{Whiten: "laplace"}}.Validate(), "whiten"},
		{svgd.Settings{Frame: sampler.Frame{KSDSize: 10}}.Validate(), "ksd_size"},
		{sgld.Settings{Frame: sampler.Frame{Stop: "ksd"}}.Validate(), "stop"},
		{sp.Settings{Frame: sampler.Frame{Stop: "plateau"}}.Validate(), "stop"},
		{sp.Settings{Frame: sampler.Frame{Whiten: "pca"}}.Validate(), "whiten"},
		{mmdfw.Settings{Frame: sampler.Frame{KSDSize: -1}}.Validate(), "ksd_size"},
	} {
		if c.err == nil {
			t.Errorf("no error, want one naming %s", c.want)
			continue
		}
		if !reflectKey(c.err, c.want) {
			t.Errorf("%v: want an error naming %s", c.err, c.want)
		}
	}
	r := sampler.Rules{Stops: []sampler.Stop{"plateau", sampler.StopFixed}, Whiten: true}
	f := sampler.Frame{}.Resolved(r)
	if f.Whiten != sampler.WhitenLaplace || f.Stop != "plateau" || f.KSDSize != 0 {
		t.Errorf("resolved %+v", f)
	}
	if n := f.Ceiling(0, 400, 100); n != 400 {
		t.Errorf("ceiling of a criterion %d, want 400", n)
	}
	f.Stop = sampler.StopFixed
	if n := f.Ceiling(0, 400, 100); n != 100 {
		t.Errorf("count of a fixed stop %d, want 100", n)
	}
	if n := f.Ceiling(7, 400, 100); n != 7 {
		t.Errorf("a given count %d, want 7", n)
	}
}

// reflectKey reports whether err is a *setting.Error naming key.
func reflectKey(err error, key string) bool {
	e, ok := setting.As(err)
	return ok && e.Field == key
}
