package sp_test

import "github.com/mmdfw/mmdfw/internal/testutil"

// long and skipUnlessLong gate the checks that make test leaves out for
// time and make test-long runs (testutil.Long).
var (
	long           = testutil.Long
	skipUnlessLong = testutil.SkipUnlessLong
)
