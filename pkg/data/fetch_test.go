package data

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serve starts a server answering each path of files with its content and
// 404 otherwise.
func serve(t *testing.T, files map[string][]byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// onlyFiles lists the names in folder, to prove no temporary file is left.
func onlyFiles(t *testing.T, folder string) []string {
	t.Helper()
	es, err := os.ReadDir(folder)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return n
}

func toyRemote(srvURL string) *Dataset {
	d := &Dataset{Name: "toy", Task: TaskRegression, Rows: 6, Cols: 4, Features: 3, Splits: 1}
	for name, content := range toyRegression {
		f := File{Name: name, Size: int64(len(content)), SHA256: sha([]byte(content)), Role: RoleMeta,
			URLs: []string{srvURL + "/gone/" + name, srvURL + "/ok/" + name}}
		if name == "data.txt" {
			f.Role, f.Format, f.Rows = RoleData, FormatTable, 6
		}
		d.Files = append(d.Files, f)
	}
	return d
}

func TestFetchHTTP(t *testing.T) {
	files := map[string][]byte{}
	for name, content := range toyRegression {
		files["/ok/"+name] = []byte(content)
	}
	srv := serve(t, files)
	d := toyRemote(srv.URL)
	dir := t.TempDir()
	// The first URL of every file is a 404: the second one must be used.
	if err := Fetch(context.Background(), dir, d, FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := d.Status(dir); s.State != StateComplete {
		t.Fatalf("after fetch: %+v", s)
	}
	if _, err := d.LoadRegression(dir, 0); err != nil {
		t.Fatal(err)
	}
	if got := len(onlyFiles(t, filepath.Join(dir, "toy"))); got != len(toyRegression) {
		t.Errorf("%d files in the folder, want %d", got, len(toyRegression))
	}
}

func TestFetchHTTPChecksumMismatch(t *testing.T) {
	files := map[string][]byte{}
	for name, content := range toyRegression {
		files["/ok/"+name] = []byte(content)
	}
	files["/ok/data.txt"] = []byte(strings.Replace(toyRegression["data.txt"], "9.0", "8.0", 1))
	srv := serve(t, files)
	d := toyRemote(srv.URL)
	dir := t.TempDir()
	err := Fetch(context.Background(), dir, d, FetchOptions{})
	var ce *ChecksumError
	if !errors.As(err, &ce) || !strings.Contains(ce.Path, "data.txt") {
		t.Fatalf("error %v, want a checksum mismatch of data.txt", err)
	}
	for _, n := range onlyFiles(t, filepath.Join(dir, "toy")) {
		if n == "data.txt" || strings.HasSuffix(n, ".tmp") {
			t.Errorf("left %s behind after a mismatch", n)
		}
	}
}

func TestFetchOffline(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	d := toyRemote(url)
	start := time.Now()
	err := Fetch(context.Background(), t.TempDir(), d, FetchOptions{Timeout: 5 * time.Second})
	var ne *NetworkError
	if !errors.As(err, &ne) {
		t.Fatalf("error %v, want a *NetworkError", err)
	}
	if !strings.Contains(err.Error(), url+"/gone/") || !strings.Contains(err.Error(), "--mirror") {
		t.Errorf("error %q does not name the URL and suggest --mirror", err)
	}
	// Fail fast: one connection refused, not one per file and URL. (Not a
	// timing assertion on speed, only that the timeout never fired.)
	if time.Since(start) > 5*time.Second {
		t.Errorf("offline fetch took %v", time.Since(start))
	}
}

func TestFetchMirror(t *testing.T) {
	mirror, d := writeRegression(t, nil)
	dir := t.TempDir()
	if err := Fetch(context.Background(), dir, d, FetchOptions{Mirror: mirror}); err != nil {
		t.Fatal(err)
	}
	if err := func() error { _, err := d.Verify(dir); return err }(); err != nil {
		t.Fatal(err)
	}
	// A mirror without the dataset.
	other := &Dataset{Name: "absent", Files: d.Files}
	if err := Fetch(context.Background(), dir, other, FetchOptions{Mirror: mirror}); !errors.Is(err, ErrNotInMirror) {
		t.Errorf("absent dataset: error %v, want ErrNotInMirror", err)
	}
	// A corrupted mirror copy is refused and not put in place.
	dir = t.TempDir()
	p := filepath.Join(mirror, "toy", "index_test_0.txt")
	if err := os.WriteFile(p, []byte("4\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Fetch(context.Background(), dir, d, FetchOptions{Mirror: mirror})
	var ce *ChecksumError
	if !errors.As(err, &ce) || !strings.Contains(ce.Path, "index_test_0.txt") {
		t.Fatalf("error %v, want a checksum mismatch of index_test_0.txt", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "toy", "index_test_0.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the corrupted copy was put in place: %v", err)
	}
}

func TestFetchMirrorSubset(t *testing.T) {
	mirror := t.TempDir()
	d := toyClassDataset(t, mirror, false, false, true)
	d.Files = append(d.Files, File{Name: "toy.csv", Role: RoleData, Format: FormatCSV, Rows: 10, SHA256: sha(toyCovertype())})
	dir := t.TempDir()
	var log bytes.Buffer
	if err := Fetch(context.Background(), dir, d, FetchOptions{Mirror: mirror, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if s := d.Status(dir); s.String() != "subset 5/10" {
		t.Errorf("status %s, want subset 5/10", s)
	}
	if !strings.Contains(log.String(), "subset 5/10") {
		t.Errorf("log %q does not say subset 5/10", log.String())
	}
}

// TestFetchTrustOnFirstUse covers a file without a published checksum
// served inside a zip archive, as Year is.
func TestFetchTrustOnFirstUse(t *testing.T) {
	content := []byte("2001,1.5,2\n1999,0.5,3\n2003,2.5,4\n")
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("sub/Y.txt")
	w.Write(content)
	zw.Close()
	srv := serve(t, map[string][]byte{"/y.zip": zb.Bytes()})
	d := &Dataset{Name: "y", Task: TaskRegression, Rows: 3, Cols: 3, NTrain: 2, NTest: 1, Files: []File{{
		Name: "Y.txt", Format: FormatCSV, Role: RoleData, Rows: 3, Member: "Y.txt", URLs: []string{srv.URL + "/y.zip"},
	}}}
	dir := t.TempDir()
	if err := Fetch(context.Background(), dir, d, FetchOptions{}); !errors.Is(err, ErrNoChecksum) {
		t.Fatalf("without trust on first use: %v, want ErrNoChecksum", err)
	}
	if n := onlyFiles(t, filepath.Join(dir, "y")); len(n) != 0 {
		t.Fatalf("refused fetch left %v", n)
	}
	if err := Fetch(context.Background(), dir, d, FetchOptions{TrustOnFirstUse: true}); err != nil {
		t.Fatal(err)
	}
	pin, err := os.ReadFile(filepath.Join(dir, "y", PinFile("Y.txt")))
	if err != nil || !strings.HasPrefix(string(pin), sha(content)) {
		t.Fatalf("pin %q, %v; want %s", pin, err, sha(content))
	}
	if _, err := d.Verify(dir); err != nil {
		t.Fatal(err)
	}
	// The pinned checksum now guards the file like a published one.
	p := filepath.Join(dir, "y", "Y.txt")
	os.WriteFile(p, bytes.Replace(content, []byte("1999"), []byte("1998"), 1), 0o644)
	var ce *ChecksumError
	if _, err := d.Verify(dir); !errors.As(err, &ce) || ce.Want != sha(content) {
		t.Errorf("Verify after a change: %v", err)
	}
	// A copy of the wrong shape is not trusted.
	d.Rows, d.Files[0].Rows = 4, 4
	if err := Fetch(context.Background(), t.TempDir(), d, FetchOptions{TrustOnFirstUse: true}); err == nil || !strings.Contains(err.Error(), "3 rows, want 4") {
		t.Errorf("wrong row count: %v", err)
	}
}
