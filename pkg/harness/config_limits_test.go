package harness

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestConfigShapeCommitted checks that the shape limits leave room over
// every committed experiment and example file, and reports their extremes.
func TestConfigShapeCommitted(t *testing.T) {
	files, _ := filepath.Glob("../../experiments/*.toml")
	more, _ := filepath.Glob("../../examples/*/*.toml")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no experiment files found")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkConfigShape(f, src); err != nil {
			t.Errorf("%v", err)
		}
		parts, depth := configExtremes(src)
		t.Logf("%s: %d bytes, keys of up to %d parts, nesting %d", f, len(src), parts, depth)
		if len(src) > MaxConfigBytes/8 || parts > MaxKeyParts/4 || depth > MaxNesting/4 {
			t.Errorf("%s: %d bytes, keys of %d parts, nesting %d: within a factor of 4 of the limits", f, len(src), parts, depth)
		}
	}
}

// configExtremes returns the most parts of a key and the deepest nesting
// that checkConfigShape accepts src with: the least limits it passes.
func configExtremes(src []byte) (parts, depth int) {
	fits := func(p, d int) bool { return checkShape("f", src, p, d) == nil }
	for parts = 1; !fits(parts, MaxNesting); parts++ {
	}
	for depth = 0; !fits(MaxKeyParts, depth); depth++ {
	}
	return parts, depth
}

func TestConfigShapeErrors(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
	}{
		{"dotted key", "id = \"x\"\n" + strings.Repeat("a.", 20000) + "a = 1\n", "f.toml:2: a dotted key of more than 32 parts (MaxKeyParts)"},
		{"header", "id = \"x\"\n\n[" + strings.Repeat("t.", 40) + "t]\n", "f.toml:3: a dotted key of more than 32 parts"},
		{"array header", "[[" + strings.Repeat("t.", 40) + "t]]\n", "f.toml:1: a dotted key of more than 32 parts"},
		{"inline key", "x = {" + strings.Repeat("t.", 40) + "t = 1}\n", "f.toml:1: a dotted key of more than 32 parts"},
		{"arrays", "x = " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n", "f.toml:1: arrays and inline tables nested more than 32 deep (MaxNesting)"},
		{"inline tables", "x = " + strings.Repeat("{a = ", 100000) + "1" + strings.Repeat("}", 100000) + "\n", "f.toml:1: arrays and inline tables nested more than 32 deep"},
		{"arrays over lines", "a = 1\nx = [\n" + strings.Repeat("[\n", 40) + "]\n", "f.toml:34: arrays and inline tables nested"},
		{"size", "# " + strings.Repeat("x", MaxConfigBytes) + "\n", "f.toml: 1048579 bytes: an experiment file has at most 1048576 (MaxConfigBytes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(c.src)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Load(NewRegistry(), "f.toml", src, "")
			runtime.ReadMemStats(&after)
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v\nwant prefix %q", err, c.want)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
				t.Errorf("allocated %d bytes before failing, want < 1 MiB", got)
			}
		})
	}
}

// TestConfigShapeAccepts: what the scanner must not take for keys or
// nesting: dots and brackets in strings and comments, floats, dates, and
// deep but legal structure.
func TestConfigShapeAccepts(t *testing.T) {
	deep := strings.Repeat(".", 200)
	for _, src := range []string{
		"a = \"" + deep + "\"\n",
		"a = '" + deep + "'\n",
		"a = \"\"\"\n" + deep + "\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n\"\"\"\n",
		"a = '''\n" + deep + "\n'''''\n",
		"a = \"\\\"" + deep + "\"\n",
		"# " + deep + strings.Repeat("[", 100) + "\n",
		"a = [" + strings.Repeat("1.5, ", 100) + "]\n",
		"\"" + deep + "\" = 1\n",
		"x.y.z = 1979-05-27T07:32:00.999Z\n",
		"[" + strings.Repeat("t.", 31) + "t]\n",
		"x = " + strings.Repeat("[", 32) + strings.Repeat("]", 32) + "\n" + "y = " + strings.Repeat("[", 32) + strings.Repeat("]", 32) + "\n",
		"x = {a = 1, b.c = {}, d = [1, {e = 2}]}\n[[t]]\ny = 1\n",
	} {
		if err := checkConfigShape("f.toml", []byte(src)); err != nil {
			t.Errorf("%.60q: %v", src, err)
		}
	}
}

// TestReadConfigFile refuses a device and a file over MaxConfigBytes
// before reading it.
func TestReadConfigFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := LoadFile(NewRegistry(), "/dev/zero", "")
		if err == nil || err.Error() != "/dev/zero: not a regular file (Dc---------)" {
			t.Errorf("LoadFile(/dev/zero): %v", err)
		}
	}
	big := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(big, make([]byte, MaxConfigBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadFileSet(NewRegistry(), big, "", nil)
	if err == nil || !strings.HasSuffix(err.Error(), "big.toml: 1048577 bytes: an experiment file has at most 1048576 (MaxConfigBytes)") {
		t.Errorf("LoadFileSet(big): %v", err)
	}
}
