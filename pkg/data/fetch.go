package data

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/mmdfw/mmdfw/pkg/atomicfile"
)

// FetchOptions controls Fetch.
type FetchOptions struct {
	// Mirror is a folder laid out as a data folder (one folder per dataset);
	// when set, files are copied from it and the network is not used.
	Mirror string
	// Client downloads; nil uses a client whose connections, TLS handshakes
	// and idle reads time out after Timeout.
	Client *http.Client
	// Timeout bounds connecting and each pause in a download; 0 means 30 s.
	Timeout time.Duration
	// TrustOnFirstUse allows a file without a published checksum (Year) to
	// be accepted and its sha256 pinned beside it (PinFile).
	TrustOnFirstUse bool
	// Log receives a line per dataset and per notable event; nil discards.
	Log io.Writer

	present, fetched int // files found intact and files put in place
}

// ErrNotInMirror is wrapped by Fetch's error when the mirror has no copy of
// the dataset at all (a mirror without Year, say).
var ErrNotInMirror = errors.New("not in the mirror")

// A NetworkError reports a download that failed below HTTP: no route, no
// DNS, a timeout. Fetch stops at the first one rather than trying every
// remaining file of an offline machine.
type NetworkError struct {
	URL string
	Err error
}

// Error names the URL and suggests a mirror.
func (e *NetworkError) Error() string {
	return fmt.Sprintf("GET %s: %v (offline? use --mirror DIR, a folder holding one folder per dataset)", e.URL, e.Err)
}

// Unwrap returns the transport's error.
func (e *NetworkError) Unwrap() error { return e.Err }

func (o *FetchOptions) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

func (o *FetchOptions) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 30 * time.Second
}

func (o *FetchOptions) client() *http.Client {
	if o.Client != nil {
		return o.Client
	}
	t := o.timeout()
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: t}).DialContext,
		TLSHandshakeTimeout:   t,
		ResponseHeaderTimeout: t,
	}}
}

// Fetch brings the files of d into dir/<d.Name>: from opt.Mirror when set,
// else from the files' URLs. Files already present with the right checksum
// are kept. Every file is written to a temporary file in the destination
// folder, checked against its sha256 and only then renamed into place, so
// a failed or tampered transfer never leaves a file that looks fetched.
// For covertype a mirror holding only the 20,000-row prefix yields the
// prefix, which Status and the loaders then report as a subset.
func Fetch(ctx context.Context, dir string, d *Dataset, opt FetchOptions) error {
	folder := filepath.Join(dir, d.Name)
	if opt.Mirror != "" {
		if fi, err := os.Stat(opt.Mirror); err != nil {
			return fmt.Errorf("mirror: %w", err)
		} else if !fi.IsDir() {
			return fmt.Errorf("mirror %s is not a directory", opt.Mirror)
		}
		if fi, err := os.Stat(filepath.Join(opt.Mirror, d.Name)); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s: %w %s", d.Name, ErrNotInMirror, opt.Mirror)
		}
	}
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	var errs []error
	dataDone := false
	for _, subset := range []bool{false, true} {
		for _, f := range d.Files {
			if f.Role != RoleData || f.Subset != subset || dataDone {
				continue
			}
			err := fetchFile(ctx, folder, d, f, &opt)
			var ne *NetworkError
			switch {
			case err == nil:
				dataDone = true
				if f.Subset {
					opt.logf("%s: %s is a %s-row prefix: subset %d/%d, not the full dataset", d.Name, f.Name, thousands(f.Rows), f.Rows, d.Rows)
				}
			case errors.As(err, &ne):
				return err
			case errors.Is(err, errUnavailable):
				// try the next form
			default:
				errs = append(errs, err)
			}
		}
	}
	if !dataDone && len(errs) == 0 {
		src := "its URLs"
		if opt.Mirror != "" {
			src = opt.Mirror
		}
		errs = append(errs, fmt.Errorf("%s: no data file available from %s", d.Name, src))
	}
	for _, f := range d.Files {
		if f.Role == RoleData {
			continue
		}
		err := fetchFile(ctx, folder, d, f, &opt)
		var ne *NetworkError
		switch {
		case err == nil:
		case errors.As(err, &ne) && f.Role != RoleDocument:
			return err
		case f.Role == RoleDocument:
			opt.logf("%s: %s (a description, not needed): %v", d.Name, f.Name, err)
		default:
			errs = append(errs, err)
		}
	}
	src := "the upstream URLs"
	if opt.Mirror != "" {
		src = opt.Mirror
	}
	opt.logf("%s: %d files fetched from %s, %d already present and intact", d.Name, opt.fetched, src, opt.present)
	return errors.Join(errs...)
}

// errUnavailable marks a file that the chosen source does not offer.
var errUnavailable = errors.New("not offered by the source")

// fetchFile brings one file into folder unless it is already there intact.
func fetchFile(ctx context.Context, folder string, d *Dataset, f File, opt *FetchOptions) error {
	dst := filepath.Join(folder, f.Name)
	want := f.SHA256
	if want == "" {
		// A pin from an earlier trusted download (here or in the mirror) stands in.
		if w, err := ExpectedSHA256(folder, f); err == nil {
			want = w
		} else if opt.Mirror != "" {
			if w, err := ExpectedSHA256(filepath.Join(opt.Mirror, d.Name), f); err == nil {
				want = w
			}
		}
	}
	if want != "" {
		if got, _, err := hashFile(dst); err == nil && got == want {
			opt.present++
			return nil
		}
	}
	if want == "" && !opt.TrustOnFirstUse {
		if opt.Mirror != "" {
			if _, err := os.Stat(filepath.Join(opt.Mirror, d.Name, f.Name)); err != nil {
				return fmt.Errorf("%s/%s: %w", d.Name, f.Name, errUnavailable)
			}
		}
		return fmt.Errorf("%s/%s: %w; rerun with --trust-on-first-use to accept the first copy and pin its sha256", d.Name, f.Name, ErrNoChecksum)
	}

	tmp, err := os.CreateTemp(folder, "."+f.Name+".*.tmp")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName) // a no-op after the rename
	h := sha256.New()
	w := io.MultiWriter(tmp, h)

	if opt.Mirror != "" {
		src := filepath.Join(opt.Mirror, d.Name, f.Name)
		in, err := os.Open(src)
		if err != nil {
			tmp.Close()
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("%s: %w", src, errUnavailable)
			}
			return err
		}
		_, err = io.Copy(w, in)
		in.Close()
		if err != nil {
			tmp.Close()
			return fmt.Errorf("copying %s: %w", src, err)
		}
	} else {
		if len(f.URLs) == 0 {
			tmp.Close()
			return fmt.Errorf("%s/%s: %w (no URL; only a mirror has it)", d.Name, f.Name, errUnavailable)
		}
		if err := download(ctx, f, tmp, w, opt); err != nil {
			tmp.Close()
			return fmt.Errorf("%s/%s: %w", d.Name, f.Name, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	got := hex.EncodeToString(h.Sum(nil))
	pin := false
	if want == "" {
		// Trust on first use: accept the copy only if it has the shape of
		// the data, then pin its checksum.
		if err := checkShape(tmpName, d, f); err != nil {
			return err
		}
		want, pin = got, true
		opt.logf("%s/%s: no published checksum; pinned sha256 %s in %s", d.Name, f.Name, got, PinFile(f.Name))
	}
	if got != want {
		return &ChecksumError{Path: dst + " (fetched copy, discarded)", Want: want, Got: got}
	}
	if err := os.Rename(tmpName, dst); err != nil {
		return err
	}
	opt.fetched++
	if pin {
		if err := atomicfile.Write(filepath.Join(folder, PinFile(f.Name)), []byte(got+"  "+f.Name+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// download tries f's URLs in order and writes the file's bytes to w. When
// f.Member is set the URL serves a zip archive: it is saved to tmp first,
// and the member is then extracted into w.
func download(ctx context.Context, f File, tmp *os.File, w io.Writer, opt *FetchOptions) error {
	var errs []error
	for _, url := range f.URLs {
		err := get(ctx, url, f, tmp, w, opt)
		if err == nil {
			return nil
		}
		var ne *NetworkError
		if errors.As(err, &ne) {
			return err
		}
		errs = append(errs, err)
		if _, err := tmp.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if err := tmp.Truncate(0); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

func get(ctx context.Context, url string, f File, tmp *os.File, w io.Writer, opt *FetchOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := opt.client().Do(req)
	if err != nil {
		var ue *neturl.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return &NetworkError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	// Cancel a download that stalls for longer than the timeout.
	idle := time.AfterFunc(opt.timeout(), cancel)
	defer idle.Stop()
	body := &idleReader{r: resp.Body, t: idle, d: opt.timeout()}
	if f.Member == "" {
		if _, err := io.Copy(w, body); err != nil {
			return &NetworkError{URL: url, Err: err}
		}
		return nil
	}
	zf, err := os.CreateTemp(filepath.Dir(tmp.Name()), ".download.*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(zf.Name())
	defer zf.Close()
	n, err := io.Copy(zf, body)
	if err != nil {
		return &NetworkError{URL: url, Err: err}
	}
	return extractMember(zf, n, f.Member, w, url, 1)
}

// extractMember copies the member named name (matched on its base name)
// out of the zip archive ra into w, looking one level into a nested zip.
func extractMember(ra io.ReaderAt, size int64, name string, w io.Writer, url string, depth int) error {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return fmt.Errorf("%s: not a zip archive: %w", url, err)
	}
	for _, zf := range zr.File {
		if filepath.Base(zf.Name) != name {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return fmt.Errorf("%s: member %s: %w", url, zf.Name, err)
		}
		defer rc.Close()
		if _, err := io.Copy(w, rc); err != nil {
			return fmt.Errorf("%s: member %s: %w", url, zf.Name, err)
		}
		return nil
	}
	if depth > 0 {
		for _, zf := range zr.File {
			if filepath.Base(zf.Name) != name+".zip" {
				continue
			}
			rc, err := zf.Open()
			if err != nil {
				return fmt.Errorf("%s: member %s: %w", url, zf.Name, err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return fmt.Errorf("%s: member %s: %w", url, zf.Name, err)
			}
			return extractMember(bytes.NewReader(b), int64(len(b)), name, w, url, depth-1)
		}
	}
	return fmt.Errorf("%s: no member %s in the archive", url, name)
}

type idleReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (x *idleReader) Read(p []byte) (int, error) {
	x.t.Reset(x.d)
	return x.r.Read(p)
}

// checkShape accepts a file with no published checksum only if it has the
// registered row count and the column count of the dataset's first line;
// it counts lines without parsing every number.
func checkShape(path string, d *Dataset, f File) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	rows := 0
	for sc.Scan() {
		b := sc.Bytes()
		if isBlank(b) {
			continue
		}
		rows++
		if rows == 1 && d.Cols > 0 {
			sep := Comma
			if f.Format == FormatTable {
				sep = Whitespace
			}
			if n := len(splitFields(b, sep, nil)); n != d.Cols {
				return &ParseError{File: f.Name + " (fetched copy, discarded)", Line: 1, Err: fmt.Errorf("%d columns, want %d", n, d.Cols)}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return &ParseError{File: f.Name + " (fetched copy, discarded)", Line: rows + 1, Err: err}
	}
	if f.Rows > 0 && rows != f.Rows {
		return &ParseError{File: f.Name + " (fetched copy, discarded)", Err: fmt.Errorf("%d rows, want %d", rows, f.Rows)}
	}
	return nil
}
