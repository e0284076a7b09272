package main

import "github.com/mmdfw/mmdfw/pkg/harness"

// testRegistry returns the command's registry with the test kind
// "test-judge", its metric "test-first" and the test dataset
// "test-normal2" added: the registry the tests run the command with.
func testRegistry() *harness.Registry {
	r := newRegistry()
	registerJudge(r)
	registerNormal2(r)
	return r
}
