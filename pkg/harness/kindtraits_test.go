package harness

import (
	"context"
	"strings"
	"testing"
)

// kindRegistry has the method kinds a and b.
func kindRegistry() *Registry {
	r := NewRegistry()
	run := func(context.Context, Input[walkSettings]) (Output, error) { return Output{}, nil }
	RegisterMethod(r, "a", "1", run)
	RegisterMethod(r, "b", "1", run)
	return r
}

// wantPanic runs f and checks that it panics with a message containing
// want.
func wantPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Errorf("panic %v, want one saying %q", r, want)
		}
	}()
	f()
}

// A kind's traits are recorded once, for a registered kind, and read
// back in a table of the caller's; a kind without any has the zero traits.
func TestDescribeKind(t *testing.T) {
	r := kindRegistry()
	r.DescribeKind("a", KindTraits{Legend: 2, OneParticlePerStep: true})
	k := r.Kinds()
	if got := k.Traits("a"); got.Legend != 2 || !got.OneParticlePerStep {
		t.Errorf("traits of a: %+v", got)
	}
	if got := k.Traits("b"); got.Legend != 0 || got.OneParticlePerStep || got.Flags != nil {
		t.Errorf("traits of undescribed b: %+v, want zero", got)
	}
	k["a"] = KindTraits{}
	if r.Kinds().Traits("a").Legend != 2 {
		t.Error("Kinds returned the registry's own table")
	}
	wantPanic(t, "unregistered method c", func() { r.DescribeKind("c", KindTraits{}) })
	wantPanic(t, "described twice", func() { r.DescribeKind("a", KindTraits{}) })
	wantPanic(t, "negative legend", func() { r.DescribeKind("b", KindTraits{Legend: -1}) })
}

// Run-time checks are listed in the order described, each of registered
// kinds with a flag and a key, one per flag.
func TestDescribeCheck(t *testing.T) {
	r := kindRegistry()
	r.DescribeCheck(RunCheck{Flag: "z", Kinds: []string{"b"}, Key: "zk"})
	r.DescribeCheck(RunCheck{Flag: "y", Kinds: []string{"a", "b"}, Key: "yk"})
	c := r.Checks()
	if len(c) != 2 || c[0].Flag != "z" || c[1].Flag != "y" {
		t.Fatalf("checks %+v, want z then y", c)
	}
	c[1].Kinds[0] = "x"
	if r.Checks()[1].Kinds[0] != "a" {
		t.Error("Checks returned the registry's own kinds")
	}
	wantPanic(t, "unregistered method c", func() { r.DescribeCheck(RunCheck{Flag: "w", Kinds: []string{"c"}, Key: "wk"}) })
	wantPanic(t, "described twice", func() { r.DescribeCheck(RunCheck{Flag: "z", Kinds: []string{"a"}, Key: "zk"}) })
	wantPanic(t, "needs a flag, a key and a kind", func() { r.DescribeCheck(RunCheck{Flag: "v", Kinds: []string{"a"}}) })
}
