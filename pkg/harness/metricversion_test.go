package harness

import (
	"strings"
	"testing"
)

// TestMetricVersionKeys: a metric's version enters the cache key of exactly
// the cells that evaluate it. Bumping it changes those keys and leaves the
// keys of every cell that does not evaluate the metric as they were; an
// unversioned metric adds nothing to any key.
func TestMetricVersionKeys(t *testing.T) {
	ty := newToy()
	withSq := strings.Replace(dsBase, `metrics = ["mean0"]`, `metrics = ["mean0", "sq"]`, 1)
	keysOf := func(text string) map[string]string {
		t.Helper()
		e, err := Load(ty.reg, "toy.toml", []byte(text), "")
		if err != nil {
			t.Fatal(err)
		}
		r := NewRunner(ty.reg, Options{Results: t.TempDir(), Log: quiet})
		out := map[string]string{}
		for _, c := range Plan([]*Experiment{e}) {
			ck, err := r.key(c)
			if err != nil || ck.Err != nil {
				t.Fatal(err, ck.Err)
			}
			out[c.ID] = ck.Key
		}
		return out
	}
	plain, sq := keysOf(dsBase), keysOf(withSq)
	if len(plain) == 0 {
		t.Fatal("no cells")
	}
	ty.reg.mversion["sq"] = "2"
	plain2, sq2 := keysOf(dsBase), keysOf(withSq)
	for id, k := range plain {
		if plain2[id] != k {
			t.Errorf("%s does not evaluate sq, but its key changed with sq's version", id)
		}
		if sq[id] == sq2[id] {
			t.Errorf("%s evaluates sq, but its key did not change with sq's version", id)
		}
	}
	ty.reg.mversion["sq"] = "3"
	for id, k := range keysOf(withSq) {
		if k == sq2[id] {
			t.Errorf("%s: versions 2 and 3 of sq give the same key", id)
		}
	}
}
