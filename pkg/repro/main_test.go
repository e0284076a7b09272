package repro

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Main writes the command's output and messages to the writers it is
// given, not to the process's: a program of one's own can capture both.
func TestMainWriters(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		out, msg   string
		outEmpty   bool
		noMessages bool
	}{
		{args: []string{"version"}, code: 0, out: "repro ", noMessages: true},
		{args: []string{"nosuchcommand"}, code: 2, msg: `unknown command "nosuchcommand"`, outEmpty: true},
		{args: []string{"run", "--no-such-flag"}, code: 2, msg: "flag provided but not defined", outEmpty: true},
		{args: []string{"status", "../../experiments/fig1a.toml", "--results", t.TempDir(), "--data-dir", t.TempDir()}, code: 0, out: "done", msg: "cells judged by the data checksums"},
	} {
		var out, msg bytes.Buffer
		code := Main(context.Background(), NewRegistry(), tc.args, &out, &msg)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(msg.String(), tc.msg) ||
			(tc.outEmpty && out.Len() > 0) || (tc.noMessages && msg.Len() > 0) {
			t.Errorf("Main %q: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), msg.String())
		}
	}
}

// A --posteriordb given to one call of Main holds for that call only.
func TestMainPosteriorDBPerCall(t *testing.T) {
	t.Setenv(PosteriorDBEnv, "")
	before := PosteriorDB()
	dir := t.TempDir()
	var out, msg bytes.Buffer
	if code := Main(context.Background(), NewRegistry(), []string{"pdb", "list", "--posteriordb", dir}, &out, &msg); code != 1 || !strings.Contains(msg.String(), dir) {
		t.Errorf("pdb list on an empty folder: exit %d\n%s", code, msg.String())
	}
	if got := PosteriorDB(); got != before {
		t.Errorf("after the call the posteriordb folder is %q, was %q", got, before)
	}
}
