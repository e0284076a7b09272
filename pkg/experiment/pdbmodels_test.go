package experiment

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
	"github.com/mmdfw/mmdfw/pkg/pdbmodel"
)

// A posteriordb model registered on one registry is that registry's only;
// a name of pkg/pdbmodel's or one registered twice panics; its version
// enters the sums of its posteriors.
func TestRegisterPosteriorModel(t *testing.T) {
	build := func(map[string]json.RawMessage) (*pdbmodel.Model, error) { return nil, nil }
	r1, r2 := harness.NewRegistry(), harness.NewRegistry()
	RegisterPosteriorModel(r1, "mine", "7", build)
	if !slices.Contains(PosteriorModels(r1), "mine") || slices.Contains(PosteriorModels(r2), "mine") {
		t.Errorf("models: r1 %v, r2 %v", PosteriorModels(r1), PosteriorModels(r2))
	}
	if !slices.Contains(PosteriorModels(r2), "eight_schools_noncentered") {
		t.Errorf("pkg/pdbmodel's models missing: %v", PosteriorModels(r2))
	}
	if _, v, ok := posteriorModels(r1).own("mine"); !ok || v != "7" {
		t.Errorf("own: %q %v", v, ok)
	}
	for _, tc := range []struct{ name, want string }{
		{"mine", "registered twice"},
		{"eight_schools_noncentered", "is pkg/pdbmodel's"},
	} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), tc.want) {
					t.Errorf("register %s: panic %v, want %q", tc.name, p, tc.want)
				}
			}()
			RegisterPosteriorModel(r1, tc.name, "1", build)
		}()
	}
}
