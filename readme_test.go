// Package mmdfw_test checks README.md against the files it quotes and the
// commands it shows. It lives beside README.md, so that the examples README
// invites one to copy elsewhere carry no test that reads it.
package mmdfw_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// README.md's section "Use it for your own method" shows the registration
// of examples/own-method verbatim: the body of its newRegistry.
func TestREADMEShowsTheRegistration(t *testing.T) {
	text := readme(t)
	src, err := os.ReadFile("examples/own-method/main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "func newRegistry() *repro.Registry {\n")
	body, _, ok2 := strings.Cut(body, "\treturn reg\n}")
	if !ok || !ok2 {
		t.Fatal("examples/own-method/main.go has no newRegistry ending in return reg")
	}
	body = strings.ReplaceAll(body, "\n\t", "\n")[1:]
	_, sec, ok := strings.Cut(text, "## Use it for your own method")
	if !ok {
		t.Fatal(`README.md has no section "Use it for your own method"`)
	}
	_, block, _ := strings.Cut(sec, "```go\n")
	block, _, _ = strings.Cut(block, "```\n")
	if block != body {
		t.Errorf("README.md's registration differs from examples/own-method/main.go's:\n%s\nwant:\n%s", block, body)
	}
}

// resultsCmdRE matches a repro command of README.md that reads or writes a
// results directory.
var resultsCmdRE = regexp.MustCompile(`\brepro (run|reference|plot|report|status|list|clean|prepare) `)

// Every repro command README.md shows under the quick profile names its
// results directory: the Makefile keeps the quick profile's results in
// quick/results, not in the default results, so a command without
// --results would not find what make reproduce-quick made.
func TestREADMEQuickCommandsNameTheirResults(t *testing.T) {
	n := 0
	for i, line := range strings.Split(readme(t), "\n") {
		if !resultsCmdRE.MatchString(line) || !strings.Contains(line, "--profile quick") {
			continue
		}
		n++
		if !strings.Contains(line, "--results ") {
			t.Errorf("README.md:%d: a quick-profile command without --results (make reproduce-quick writes quick/results): %s", i+1, strings.TrimSpace(line))
		}
	}
	if n == 0 {
		t.Error("README.md shows no repro command under --profile quick: the check reads nothing")
	}
}

// README.md's section "A log density from building blocks" shows the body
// of pkg/logpdf's Example_posterior verbatim (up to the example's own
// evaluation), so that the snippet compiles and its output is checked.
func TestREADMEShowsTheLogpdfExample(t *testing.T) {
	src, err := os.ReadFile("pkg/logpdf/example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "func Example_posterior() {\n")
	body, _, ok2 := strings.Cut(body, "\n\n\tu := ")
	if !ok || !ok2 {
		t.Fatal("pkg/logpdf/example_test.go has no Example_posterior evaluating at u")
	}
	body = strings.ReplaceAll("\n"+body, "\n\t", "\n")[1:] + "\n"
	_, sec, ok := strings.Cut(readme(t), "### A log density from building blocks")
	if !ok {
		t.Fatal(`README.md has no section "A log density from building blocks"`)
	}
	_, block, _ := strings.Cut(sec, "```go\n")
	block, _, _ = strings.Cut(block, "```\n")
	if block != body {
		t.Errorf("README.md's snippet differs from Example_posterior's:\n%s\nwant:\n%s", block, body)
	}
}
