// Package probe holds measurement programs that inform a choice of settings
// (internal/probe/<name>, each a main package run with `go run`). They read
// only rows that no reported figure reads: a Covertype split seed that no
// experiment file lists, or validation rows carved from a split's training
// rows. They are not part of `make test`; each prints its table to stdout
// and its command line is recorded with the numbers in docs/DECISIONS.md.
package probe
