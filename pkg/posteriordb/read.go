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

// maxMember bounds the unzipped size of a member (1 GiB): more is refused
// rather than read into memory.
const maxMember = 1 << 30

// unzipOne returns the name and bytes of the one file member of the zip
// archive b read from path (directories and __MACOSX/ entries aside).
func unzipOne(path string, b []byte) (string, []byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return "", nil, fmt.Errorf("posteriordb: %s: not a zip archive: %v", path, err)
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
		return "", nil, fmt.Errorf("posteriordb: %s: %d members %q, want one JSON file", path, len(files), names)
	}
	f := files[0]
	if f.UncompressedSize64 > maxMember {
		return "", nil, fmt.Errorf("posteriordb: %s (member %s): %d bytes unzipped, more than %d", path, f.Name, f.UncompressedSize64, maxMember)
	}
	rc, err := f.Open()
	if err != nil {
		return "", nil, fmt.Errorf("posteriordb: %s (member %s): %v", path, f.Name, err)
	}
	defer rc.Close()
	out, err := io.ReadAll(io.LimitReader(rc, maxMember+1))
	if err == nil && len(out) > maxMember {
		err = fmt.Errorf("more than %d bytes unzipped", maxMember)
	}
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
	return fmt.Errorf("posteriordb: %s: %s at %s: %v", file, what, where(data, off+shift), err)
}

// where is "line L, column C (byte O)" of the byte at offset off in data:
// lines and columns count from 1 (a column counts bytes), the offset from 0.
func where(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d (byte %d)", line, col, off)
}
