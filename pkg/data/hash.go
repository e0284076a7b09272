package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// FileSum names one file a result was computed from and its sha256; a
// result cache keys on these so that a changed file invalidates it.
type FileSum struct {
	Path   string // "<dataset>/<file>"
	SHA256 string
}

// A ChecksumError reports a file whose bytes are not the registered ones.
type ChecksumError struct {
	Path      string
	Want, Got string
}

// Error names the file and both checksums.
func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s: sha256 mismatch: want %s, got %s", e.Path, e.Want, e.Got)
}

// ErrNoChecksum is wrapped by the error for a file that has no published
// checksum and none pinned locally (see PinFile).
var ErrNoChecksum = errors.New("no sha256 published or pinned")

// PinFile is the name of the file, beside a data file without a published
// checksum, that holds the sha256 recorded on its first trusted download.
func PinFile(name string) string { return name + ".sha256" }

// ExpectedSHA256 returns the checksum f must have inside folder: the
// registered one, or the one pinned there by a trust-on-first-use fetch
// (ErrNoChecksum when there is none).
func ExpectedSHA256(folder string, f File) (string, error) {
	if f.SHA256 != "" {
		return f.SHA256, nil
	}
	pin := filepath.Join(folder, PinFile(f.Name))
	b, err := os.ReadFile(pin)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: %w (fetch it with --trust-on-first-use to pin one)", filepath.Join(folder, f.Name), ErrNoChecksum)
		}
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		s = s[:i]
	}
	if len(s) != 64 || strings.Trim(s, "0123456789abcdef") != "" {
		return "", fmt.Errorf("%s: not a sha256 pin: %q", pin, clip([]byte(s)))
	}
	return s, nil
}

// hashFile returns the hex sha256 and size of the file at path.
func hashFile(path string) (string, int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer fh.Close()
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		return "", n, fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// verifiedReader hashes what is read through it so that a loader can check
// a file's checksum in the same pass that parses it.
type verifiedReader struct {
	fh   *os.File
	h    hashWriter
	r    io.Reader
	path string
	want string
}

type hashWriter interface {
	io.Writer
	Sum([]byte) []byte
}

// openVerified opens the regular file at path, whose sha256 must be want
// and whose size, when known (size > 0), size: a device or a FIFO is
// refused before it is opened, and no more than size+1 bytes are read (a
// longer file's prefix then fails the checksum).
func openVerified(path, want string, size int64) (*verifiedReader, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var r io.Reader = fh
	if size > 0 {
		r = io.LimitReader(fh, size+1)
	}
	h := sha256.New()
	return &verifiedReader{fh: fh, h: h, r: io.TeeReader(r, h), path: path, want: want}, nil
}

func (v *verifiedReader) Read(p []byte) (int, error) { return v.r.Read(p) }

// finish drains the rest of the file through the hash, closes it and
// returns a *ChecksumError when the bytes are not the expected ones. A
// parse error of a file with the wrong checksum is reported together with
// the mismatch, which is then the likelier cause.
func (v *verifiedReader) finish(parseErr error) error {
	defer v.fh.Close()
	if _, err := io.Copy(io.Discard, v.r); err != nil {
		return errors.Join(parseErr, fmt.Errorf("%s: %w", v.path, err))
	}
	got := hex.EncodeToString(v.h.Sum(nil))
	if got != v.want {
		return errors.Join(&ChecksumError{Path: v.path, Want: v.want, Got: got}, parseErr)
	}
	return parseErr
}
