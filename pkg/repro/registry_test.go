package repro

import (
	"context"
	"os"

	"github.com/mmdfw/mmdfw/pkg/harness"
)

// testRegistry returns the registry of pkg/repro with the test kind
// "test-judge", its metric "test-first" and the test dataset
// "test-normal2" added: the registry the tests run the command with.
func testRegistry() *harness.Registry {
	r := NewRegistry()
	registerJudge(r)
	registerNormal2(r)
	return r
}

// testCLI returns what Main gives a command, with testRegistry's registry
// and the process's standard output and error (as they are when it is
// called: a test may have redirected them).
func testCLI() *cli {
	return &cli{ctx: context.Background(), reg: testRegistry(), stdout: os.Stdout, stderr: os.Stderr}
}
