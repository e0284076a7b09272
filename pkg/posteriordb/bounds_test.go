package posteriordb

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestDrawsBoundedBeforeAllocation loads a small draws file that names one
// chain of 200,000 draws and then 200,000 empty chains: read into the shape
// of reference_info.json it is refused at the first chain's seventh draw,
// having allocated little (the draws were once assembled into a matrix of
// chains × draws × parameters, 320 GB here, before their shape was checked).
func TestDrawsBoundedBeforeAllocation(t *testing.T) {
	var b strings.Builder
	b.WriteString(`[{"theta[1]": [`)
	b.WriteString(strings.Repeat("0,", 199999))
	b.WriteString(`0]}`)
	b.WriteString(strings.Repeat(",{}", 200000))
	b.WriteString("]")
	files := goodFiles(t)
	files[FileDraws] = zipOf(t, "d.json", b.String())
	db := openToy(t, files)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := db.Load(toyName)
	runtime.ReadMemStats(&after)
	want := regexp.MustCompile(`\(member d\.json\): at line 1, column 28 \(byte 27\): chain 1, theta\[1\]: more than 6 draws: reference_info\.json gives 2 chains of 6 draws`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("error %v\nwant match %s", err, want)
	}
	// The zip archive, its reader's window and the token buffer: well
	// under 8 MiB, where the matrix alone would take 320 GB.
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("allocated %d bytes, want < 8 MiB", got)
	}
}

// TestUnzipCap refuses a member that unzips to more than maxMember bytes,
// both when its header says so and when it understates its size.
func TestUnzipCap(t *testing.T) {
	big := "[" + strings.Repeat(" ", maxMember) + "]"
	files := goodFiles(t)
	files[FileDraws] = zipOf(t, "d.json", big)
	db := openToy(t, files)
	_, err := db.Load(toyName)
	want := regexp.MustCompile(`reference_draws\.json\.zip \(member d\.json\): 67108866 bytes unzipped, more than 67108864`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("error %v\nwant match %s", err, want)
	}
}

// TestNotARegularFile refuses a posterior's file that is not a regular
// file before reading it (a FIFO would block, a device never end).
func TestNotARegularFile(t *testing.T) {
	files := goodFiles(t)
	root := t.TempDir()
	writeStaged(t, root, toyName, files)
	p := filepath.Join(root, toyName, FileDraws)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	db.Sums = nil
	_, err = db.Load(toyName)
	want := regexp.MustCompile(`reference_draws\.json\.zip is not a regular file`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("error %v\nwant match %s", err, want)
	}
}
