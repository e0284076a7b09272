package repro

import "github.com/mmdfw/mmdfw/pkg/harness"

// testRegistry returns the registry of pkg/repro with the test kind
// "test-judge", its metric "test-first" and the test dataset
// "test-normal2" added: the registry the tests run the command with.
func testRegistry() *harness.Registry {
	r := NewRegistry()
	registerJudge(r)
	registerNormal2(r)
	return r
}
