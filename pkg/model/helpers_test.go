package model

import "github.com/mmdfw/mmdfw/internal/testutil"

// synthLogistic returns n rows of p−1 uniform features and a bias column,
// with labels drawn from the logistic model at a random coefficient vector:
// testutil.LogisticData, under the name the package's tests use.
var synthLogistic = testutil.LogisticData
