package repro

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmdfw/mmdfw/internal/mirror"
	"github.com/mmdfw/mmdfw/pkg/data"
)

// TestDataVerifyCorrupt copies yacht from the staged mirror, changes one
// byte of data.txt and expects verify to fail naming it with both hashes.
func TestDataVerifyCorrupt(t *testing.T) {
	mirror, ok := mirror.Shared()
	if !ok {
		t.Skip("no staged data folder ../shared/data beside the module; skipping")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	if err := fetchData(context.Background(), &out, io.Discard, dir, []string{"yacht"}, data.FetchOptions{Mirror: mirror, Log: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "yacht") || !strings.Contains(out.String(), "complete 308/308") {
		t.Errorf("fetch output:\n%s", out.String())
	}
	out.Reset()
	if err := verifyData(&out, dir); err != nil {
		t.Fatalf("verify of an intact copy: %v", err)
	}
	p := filepath.Join(dir, "yacht", "data.txt")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[100] ^= 1
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	reg, _ := data.Lookup("yacht")
	f, _ := reg.File("data.txt")
	err = verifyData(&out, dir)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), f.SHA256) || !strings.Contains(err.Error(), "got ") {
		t.Fatalf("verify of a corrupted copy: %v", err)
	}
}

func TestDataUnknownName(t *testing.T) {
	err := fetchData(context.Background(), io.Discard, io.Discard, t.TempDir(), []string{"nope"}, data.FetchOptions{Mirror: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `unknown dataset "nope"`) {
		t.Fatalf("error %v", err)
	}
}
