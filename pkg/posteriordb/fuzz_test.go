package posteriordb

import (
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// fuzzMemoryLimit is the soft memory limit of the fuzz targets: an input
// that makes the readers allocate without bound then drives the garbage
// collector rather than the machine into the ground, and fails its
// allocation bound below.
const fuzzMemoryLimit = 512 << 20

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// toyInfo is posterior.json's information of goodFiles' posterior.
var toyInfo = &Info{Name: toyName, Dimensions: []Dimension{{"theta", 2}, {"sigma", 1}}}

// FuzzReference decodes reference draws (zipped by the target) with their
// reference_info.json for a posterior of theta[2] and sigma: either an
// error, or a reference of the shape reference_info.json gives, every
// draw within ±maxDraw, having allocated a bounded multiple of the input.
func FuzzReference(f *testing.F) {
	debug.SetMemoryLimit(fuzzMemoryLimit)
	good := goodFiles(f)
	names := []string{"theta[1]", "theta[2]", "sigma"}
	constant := func(c, i, j int) float64 { return float64(i + j) }
	f.Add([]byte(drawsJSON(names, 2, 6, constant)), good[FileInfo])
	f.Add([]byte(drawsJSON(names, 2, 2, constant)), shapeInfo(4, 2))
	f.Add([]byte(drawsJSON(names, 3, 6, constant)), good[FileInfo])
	f.Add([]byte(drawsJSON(names, 2, 1, constant)), shapeInfo(2, 2))
	f.Add([]byte(`[{"theta[1]": [1e308, 1], "theta[2]": [1, 2], "sigma": [1, 2]}]`), shapeInfo(2, 1))
	f.Add([]byte(`[{"sigma": [0,0,0,0,0,0,0,0,0]}`+strings.Repeat(",{}", 50)+`]`), good[FileInfo])
	f.Add([]byte(`[{"theta[1]": [1, 2], "theta[2]": [1, 2], "sigma": [1, 2]}] x`), shapeInfo(2, 1))
	f.Add([]byte(`[{"theta[1]": [[[[[[1]]]]]]}]`), shapeInfo(2, 1))
	f.Add([]byte(`[{"theta[1]": [1, 2], "theta[2]": [1, 2], "sigma": [1, 2]}]`), []byte(`{"diagnostics": {"ndraws": 9223372036854775807, "nchains": 1}}`))
	f.Fuzz(func(t *testing.T, draws, infoJSON []byte) {
		if len(draws)+len(infoJSON) > 1<<20 {
			return
		}
		z := zipOf(t, "d.json", string(draws))
		var ref *Reference
		var err error
		got := allocated(func() { ref, err = parseReference(toyInfo, "d.zip", z, "i.json", infoJSON) })
		if limit := uint64(64*(len(draws)+len(infoJSON))) + 4<<20; got > limit {
			t.Errorf("allocated %d bytes for %d + %d bytes of input, more than %d", got, len(draws), len(infoJSON), limit)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "posteriordb: ") {
				t.Errorf("error %q does not name the package", err)
			}
			return
		}
		d := &ref.Info.Diagnostics
		r, c := ref.Draws.Dims()
		if ref.Chains() != d.Chains || r != d.Draws || c != 3 || r/ref.Chains() < 2 {
			t.Fatalf("%d chains, %d×%d draws; reference_info.json gives %d chains, %d draws", ref.Chains(), r, c, d.Chains, d.Draws)
		}
		for _, x := range ref.Draws.RawMatrix().Data {
			if !(math.Abs(x) <= maxDraw) {
				t.Fatalf("draw %v", x)
			}
		}
	})
}

// FuzzUnzipData reads a posterior's data file: any bytes as a zip
// archive either fail with an error naming the file or give a JSON object.
func FuzzUnzipData(f *testing.F) {
	debug.SetMemoryLimit(fuzzMemoryLimit)
	f.Add(zipOf(f, "d.json", `{"N": 3, "y": [1, 2, 3]}`))
	f.Add(zipOf(f, "d.json", `null`))
	f.Add(zipOf(f, "a.json", "{}", "b.json", "{}"))
	f.Add(zipOf(f, "__MACOSX/x", "", "d.json", "{}"))
	f.Add([]byte("PK\x03\x04 not really"))
	f.Fuzz(func(t *testing.T, z []byte) {
		if len(z) > 1<<20 {
			return
		}
		var m map[string]json.RawMessage
		var err error
		got := allocated(func() { m, err = parseData("d.zip", z) })
		// A member unzips to at most maxMember bytes, decoded into at
		// most a few times that.
		if limit := uint64(4*maxMember) + 64*uint64(len(z)); got > limit {
			t.Errorf("allocated %d bytes for a %d-byte archive, more than %d", got, len(z), limit)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "posteriordb: d.zip") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if m == nil {
			t.Fatal(errors.New("no error and no data"))
		}
	})
}
