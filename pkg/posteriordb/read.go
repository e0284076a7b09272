package posteriordb

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxFile bounds the size of a posterior's file (64 MiB), which is read
// into memory whole: a larger one is refused before it is read. The
// largest of the thirteen staged posteriors' files is 2,134,287 bytes
// (diamonds-diamonds' reference_draws.json.zip).
const maxFile = 64 << 20

// maxMember bounds the unzipped size of a zip member (64 MiB): more is
// refused rather than read. The thirteen staged posteriors' largest member
// unzips to 5,118,506 bytes (diamonds-diamonds' reference draws, 10,000
// draws of 26 parameters; its data unzips to 2,350,454), so the cap leaves
// a margin of about 13 for posteriordb's larger references.
const maxMember = 64 << 20

// oneMember returns the one file member of the zip archive b read from
// path (directories and __MACOSX/ entries aside), refusing a member that
// claims more than maxMember bytes unzipped.
func oneMember(path string, b []byte) (*zip.File, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("posteriordb: %s: not a zip archive: %v", path, err)
	}
	var files []*zip.File
	var names []string
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || strings.HasPrefix(f.Name, "__MACOSX/") {
			continue
		}
		files = append(files, f)
		names = append(names, f.Name)
	}
	if len(files) != 1 {
		return nil, fmt.Errorf("posteriordb: %s: %d members %q, want one JSON file", path, len(files), names)
	}
	f := files[0]
	if f.UncompressedSize64 > maxMember {
		return nil, fmt.Errorf("posteriordb: %s (member %s): %d bytes unzipped, more than %d", path, f.Name, f.UncompressedSize64, maxMember)
	}
	return f, nil
}

// openMember opens the member f of the archive read from path for
// streaming: reading more than maxMember bytes from it is an error.
func openMember(path string, f *zip.File) (io.ReadCloser, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("posteriordb: %s (member %s): %v", path, f.Name, err)
	}
	return &cappedReader{rc: rc, left: maxMember}, nil
}

// cappedReader reads rc and fails once more than left bytes come.
type cappedReader struct {
	rc   io.ReadCloser
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, fmt.Errorf("more than %d bytes unzipped", maxMember)
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n - 1, fmt.Errorf("more than %d bytes unzipped", maxMember)
	}
	return n, err
}

func (c *cappedReader) Close() error { return c.rc.Close() }

// unzipOne returns the name and bytes of the one file member of the zip
// archive b read from path (directories and __MACOSX/ entries aside).
func unzipOne(path string, b []byte) (string, []byte, error) {
	f, err := oneMember(path, b)
	if err != nil {
		return "", nil, err
	}
	rc, err := openMember(path, f)
	if err != nil {
		return "", nil, err
	}
	defer rc.Close()
	out, err := io.ReadAll(rc)
	if err != nil {
		return "", nil, fmt.Errorf("posteriordb: %s (member %s): %v", path, f.Name, err)
	}
	return f.Name, out, nil
}

// jsonError names the place of an error of json.Unmarshal in data, read
// from file: the line, column and byte offset of the byte at which
// decoding failed, when the error has one.
func jsonError(file string, data []byte, err error) error {
	return jsonErrorAt(file, data, err, -1)
}

// jsonErrorAt is jsonError for an error whose offset is shift bytes from
// the failing byte: −1 for json.Unmarshal's (the offset counts the bytes
// read, the failing one included), 0 for a json.Decoder's Token (the
// offset is the failing byte's).
func jsonErrorAt(file string, data []byte, err error, shift int64) error {
	return jsonErrorLoc(file, func(off int64) string { return where(data, off) }, err, shift)
}

// jsonErrorLoc is jsonErrorAt with the place of an offset told by loc.
func jsonErrorLoc(file string, loc func(off int64) string, err error, shift int64) error {
	off, what := int64(-1), "malformed JSON"
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off, what = te.Offset, "a JSON value of the wrong type"
	}
	if off < 0 {
		return fmt.Errorf("posteriordb: %s: %s: %v", file, what, err)
	}
	return fmt.Errorf("posteriordb: %s: %s at %s: %v", file, what, loc(off+shift), err)
}

// where is "line L, column C (byte O)" of the byte at offset off in data:
// lines and columns count from 1 (a column counts bytes), the offset from 0.
func where(data []byte, off int64) string {
	return whereIn(bytes.NewReader(data), off)
}

// whereIn is where on the text that r reads (an offset past its end is
// its end).
func whereIn(r io.Reader, off int64) string {
	off = max(off, 0)
	line, col := 1, 1
	var n int64
	buf := make([]byte, 32<<10)
	for n < off {
		k, err := r.Read(buf[:min(int64(len(buf)), off-n)])
		for _, c := range buf[:k] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		n += int64(k)
		if err != nil {
			break
		}
	}
	return fmt.Sprintf("line %d, column %d (byte %d)", line, col, n)
}
