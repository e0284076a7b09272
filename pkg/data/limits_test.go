package data

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestReadCSVLongLine refuses a line longer than MaxCSVLine with a
// *ParseError naming its line, having read little more than the limit (a
// 1 GB line once took 5.9 GB to fail).
func TestReadCSVLongLine(t *testing.T) {
	// A reader of a header, a row, and then an endless line of digits.
	r := io.MultiReader(strings.NewReader("a,b\n1,2\n"), endless('7'))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadCSV(r, "long.csv")
	runtime.ReadMemStats(&after)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(pe.Error(), "a line longer than 1048576 bytes") {
		t.Fatalf("error %v, want a *ParseError at line 3 naming the limit", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16*MaxCSVLine {
		t.Errorf("allocated %d bytes, want < %d", got, 16*MaxCSVLine)
	}
	// A quoted field's newlines end lines too: long fields over many lines are read.
	field := strings.Repeat(strings.Repeat("x", 1000)+"\n", 2000)
	c, err := ReadCSV(strings.NewReader("a,b\n\""+field+"\",1\n"), "quoted.csv")
	if err != nil || c.Rows() != 1 {
		t.Fatalf("quoted multi-line field of 2 MB: %v", err)
	}
}

// endless reads the byte c for ever.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// TestReadCSVFileLimits refuses files that are not regular (a device that
// never ends, a folder) and files over the size limit, before reading them.
func TestReadCSVFileLimits(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.csv")
	if err := os.WriteFile(small, []byte(ownCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCSVFile(small, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCSVFile(small, int64(len(ownCSV))); err != nil {
		t.Fatalf("a file of exactly the limit: %v", err)
	}
	cases := []struct {
		path string
		max  int64
		want string
	}{
		{small, int64(len(ownCSV)) - 1, `small\.csv has 92 bytes, more than the limit of 91$`},
		{dir, 0, `is not a regular file \(d---------\)$`},
		{"/dev/zero", 0, `^/dev/zero is not a regular file \(Dc---------\)$`},
	}
	for _, c := range cases {
		if c.path == "/dev/zero" {
			if _, err := os.Stat(c.path); err != nil {
				t.Logf("no /dev/zero here: %v", err)
				continue
			}
		}
		_, err := ReadCSVFile(c.path, c.max)
		if err == nil || !regexp.MustCompile(c.want).MatchString(err.Error()) {
			t.Errorf("ReadCSVFile(%s, %d): %v, want match %s", c.path, c.max, err, c.want)
		}
	}
}

// TestLoadRefusesOtherFiles: a registered data file that is not a regular
// file is refused before it is opened, and a file longer than its
// registered size is read no further than one byte past it (its checksum
// then fails).
func TestLoadRefusesOtherFiles(t *testing.T) {
	dir, d := writeRegression(t, nil)
	p := filepath.Join(dir, d.Name, "data.txt")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := d.LoadRegression(dir, 0)
	if err == nil || !strings.HasSuffix(err.Error(), "data.txt is not a regular file (d---------)") {
		t.Fatalf("a folder for data.txt: %v", err)
	}

	dir, d = writeRegression(t, nil)
	p = filepath.Join(dir, d.Name, "data.txt")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 64 MiB more than registered: a limited read hashes only a prefix.
	if _, err := f.Write(make([]byte, 64<<20)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = d.LoadRegression(dir, 0)
	runtime.ReadMemStats(&after)
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Fatalf("a longer data.txt: %v, want a *ChecksumError", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("allocated %d bytes, want < 1 MiB", got)
	}
}
