package experiment

import (
	"context"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// testRegistry is the registry the package's tests load and run experiment
// files with: a new one filled by Register, as pkg/repro's NewRegistry
// builds it.
var testRegistry = func() *harness.Registry {
	r := harness.NewRegistry()
	Register(r)
	return r
}()

// Importing the package registers nothing anywhere: a new registry knows
// no kind until Register fills it, and a kind registered on one registry
// filled by Register does not reach another.
func TestRegisterIsExplicit(t *testing.T) {
	file := func(kind string) []byte {
		return []byte("id = \"x\"\ndatasets = [\"gauss2d\"]\nsplits = [1]\n[eval]\nmetrics = [\"mmd2\"]\n[methods.m]\nkind = \"" + kind + "\"\n")
	}
	if _, err := harness.Load(harness.NewRegistry(), "x.toml", file(KindSVGD), ""); err == nil {
		t.Error("a new registry already knows the built-in datasets, metrics or kinds")
	}
	a, b := harness.NewRegistry(), harness.NewRegistry()
	Register(a)
	Register(b)
	harness.RegisterMethod(a, "only-in-a", "1", func(ctx context.Context, in harness.Input[struct{}]) (harness.Output, error) {
		return harness.Output{}, nil
	})
	for _, r := range []*harness.Registry{a, b} {
		if _, err := harness.Load(r, "x.toml", file(KindSVGD), ""); err != nil {
			t.Errorf("Register left out a built-in name: %v", err)
		}
	}
	if _, err := harness.Load(a, "x.toml", file("only-in-a"), ""); err != nil {
		t.Errorf("a kind registered on a: %v", err)
	}
	if _, err := harness.Load(b, "x.toml", file("only-in-a"), ""); err == nil || !strings.Contains(err.Error(), "only-in-a") {
		t.Errorf("a kind registered on one registry reached another: %v", err)
	}
}
