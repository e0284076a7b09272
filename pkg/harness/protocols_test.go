package harness

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// withProtocols declares walk-a the paper's arm and walk-b the fair one.
func withProtocols(s string) string {
	s = strings.Replace(s, "kind = \"walk\"\nparticles = [3, 4]", "kind = \"walk\"\nparticles = [3, 4]\nprotocols = [\"paper\"]", 1)
	return strings.Replace(s, "[methods.walk-b]\nkind = \"walk\"", "[methods.walk-b]\nkind = \"walk\"\nprotocols = [\"fair\"]", 1)
}

func TestProtocolsDecoded(t *testing.T) {
	ty := newToy()
	e, err := Load(ty.reg, "toy.toml", []byte(withProtocols(base)), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(e.Methods[0].Protocols, e.Methods[1].Protocols); got != "[paper] [fair]" {
		t.Errorf("protocols %s, want [paper] [fair]", got)
	}
	// Absent: none.
	e, err = Load(ty.reg, "toy.toml", []byte(base), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Methods[0].Protocols)+len(e.Methods[1].Protocols) != 0 {
		t.Errorf("protocols without the key: %v %v", e.Methods[0].Protocols, e.Methods[1].Protocols)
	}
	// A profile overrides the key as any other method key, and so does
	// --set.
	q, err := Load(ty.reg, "toy.toml", []byte(strings.Replace(withProtocols(base), "[profiles.quick.methods.walk-a]\n", "[profiles.quick.methods.walk-a]\nprotocols = [\"paper\", \"fair\"]\n", 1)), "")
	if err == nil {
		t.Fatalf("walk-a and walk-b both claim fair under quick: no error (%v)", q.Methods[0].Protocols)
	}
	q, err = Load(ty.reg, "toy.toml", []byte(strings.Replace(withProtocols(base), "[profiles.quick.methods.walk-a]\n", "[profiles.quick.methods.walk-a]\nprotocols = []\n", 1)), "quick")
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Methods[0].Protocols) != 0 || fmt.Sprint(q.Methods[1].Protocols) != "[fair]" {
		t.Errorf("under quick: %v %v, want [] [fair]", q.Methods[0].Protocols, q.Methods[1].Protocols)
	}
	s, err := LoadSet(ty.reg, "toy.toml", []byte(withProtocols(base)), "", []string{`methods.walk-a.protocols=[]`, `methods.walk-b.protocols=["paper","fair"]`})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Methods[0].Protocols) != 0 || fmt.Sprint(s.Methods[1].Protocols) != "[paper fair]" {
		t.Errorf("with --set: %v %v", s.Methods[0].Protocols, s.Methods[1].Protocols)
	}
}

func TestProtocolsErrors(t *testing.T) {
	ty := newToy()
	for _, c := range []struct {
		name, src string
		line      int
		key, msg  string
	}{
		{"unknown value", strings.Replace(base, "particles = [3, 4]", "particles = [3, 4]\nprotocols = [\"fiar\"]", 1), 17, "methods.walk-a.protocols", `unknown protocol "fiar"`},
		{"listed twice", strings.Replace(base, "particles = [3, 4]", "particles = [3, 4]\nprotocols = [\"fair\", \"fair\"]", 1), 17, "methods.walk-a.protocols", "listed twice"},
		{"two arms of a kind", strings.Replace(withProtocols(base), "protocols = [\"fair\"]", "protocols = [\"paper\"]", 1), 25, "methods.walk-b.protocols", `"walk-a" and "walk-b" of kind "walk" both claim protocol "paper"`},
		{"two arms under a profile", withProtocols(base) + "[profiles.full.methods.walk-b]\nprotocols = [\"paper\"]\n", 38, "profiles.full.methods.walk-b.protocols", "both claim"},
	} {
		_, err := Load(ty.reg, "toy.toml", []byte(c.src), "")
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: error %v, want a *ConfigError", c.name, err)
			continue
		}
		if ce.File != "toy.toml" || ce.Line != c.line || ce.Key != c.key || !strings.Contains(ce.Msg, c.msg) {
			t.Errorf("%s: %v (line %d, key %s), want line %d, key %s, %q", c.name, err, ce.Line, ce.Key, c.line, c.key, c.msg)
		}
	}
}

// Protocols say how results are read: declaring them changes no cell's
// cache key.
func TestProtocolsOutsideCacheKey(t *testing.T) {
	ty := newToy()
	keys := func(src string) []string {
		e, err := Load(ty.reg, "toy.toml", []byte(src), "")
		if err != nil {
			t.Fatal(err)
		}
		r := NewRunner(ty.reg, Options{Results: t.TempDir()})
		var out []string
		for _, c := range Cells(e) {
			k, err := r.key(c)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, k.Key)
		}
		return out
	}
	a, b := keys(base), keys(withProtocols(base))
	if len(a) != 6 || strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("cache keys with protocols %v, without %v", b, a)
	}
}
