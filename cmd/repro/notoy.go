//go:build !repro_toy

package main

import "github.com/mmdfw/mmdfw/pkg/repro"

// registerToy adds nothing: the toy kinds are built in with -tags
// repro_toy only (see toy.go).
func registerToy(*repro.Registry) {}
