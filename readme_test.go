// Package mmdfw_test checks README.md against the files it quotes and the
// commands it shows. It lives beside README.md, so that the examples README
// invites one to copy elsewhere carry no test that reads it.
package mmdfw_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
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

// docAnchor is the anchor GitHub gives a Markdown heading: lower case,
// letters, digits, spaces, hyphens and underscores kept, spaces as hyphens.
func docAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docs/DECISIONS.md opens with a contents list of its sections, in order,
// each linked to its heading's anchor, so that a reader (and the report)
// can point at one decision.
func TestDecisionsContents(t *testing.T) {
	b, err := os.ReadFile("docs/DECISIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	_, rest, ok := strings.Cut(text, "\n## Contents\n\n")
	if !ok {
		t.Fatal("docs/DECISIONS.md has no ## Contents section")
	}
	list, body, _ := strings.Cut(rest, "\n\n")
	var want []string
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		m := headingRE.FindStringSubmatch(line)
		if fence || m == nil {
			continue
		}
		a := docAnchor(m[2])
		if n, dup := seen[a]; dup {
			seen[a] = n + 1
			a += "-" + strconv.Itoa(n+1)
		} else {
			seen[a] = 0
		}
		want = append(want, strings.Repeat("  ", len(m[1])-2)+"- ["+m[2]+"](#"+a+")")
	}
	got := strings.Split(list, "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		for i := range max(len(got), len(want)) {
			var g, w string
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Fatalf("contents line %d: %q, want %q (%d lines, want %d)", i+1, g, w, len(got), len(want))
			}
		}
	}
}

var headingRE = regexp.MustCompile(`^(#{2,4}) (.+)$`)

// absPathRE matches a folder of one machine in a command.
var absPathRE = regexp.MustCompile(`(^|[\s=(` + "`" + `'"])(/work/|/tmp/|/home/|/root/|/Users/)`)

// Every command in README.md, docs/ and the examples' READMEs runs as
// written from the checkout:
// no folder of one machine, only paths relative to it.
func TestDocsHaveNoMachineFolders(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Glob("examples/*/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(append(files, examples...), "README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if absPathRE.MatchString(line) {
				t.Errorf("%s:%d: a folder of one machine: %s", f, i+1, line)
			}
		}
	}
}

// unindent strips the leading tabs of every line of s.
func unindent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "\n")
}

// Every Go block of README.md and docs/ compiles: each is, but for its
// indentation, a run of lines of a Go file of the module (a program, an
// Example or a test), which the build compiles and the tests run.
func TestGoBlocksCompile(t *testing.T) {
	var sources []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sources = append(sources, unindent(string(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range append(docs, "README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(string(b), "```go\n")
		for _, p := range parts[1:] {
			block, _, ok := strings.Cut(p, "```")
			if !ok {
				t.Errorf("%s: a Go block without its end", f)
				continue
			}
			n++
			want := unindent(block)
			found := false
			for _, s := range sources {
				if strings.Contains(s, want) {
					found = true
					break
				}
			}
			if !found {
				first, _, _ := strings.Cut(strings.TrimSpace(block), "\n")
				t.Errorf("%s: the Go block that begins %q is in no Go file of the module", f, first)
			}
		}
	}
	if n == 0 {
		t.Fatal("no Go block in README.md or docs/")
	}
}

// decisionLinkRE matches a link to a section of docs/DECISIONS.md.
var decisionLinkRE = regexp.MustCompile(`\]\(([^)#]*DECISIONS\.md)#([^)]+)\)`)

// REPORT.md sends a reader from its sections to the decisions behind them,
// and every such link lands on a heading of docs/DECISIONS.md.
func TestReportLinksDecisions(t *testing.T) {
	rep, err := os.ReadFile("REPORT.md")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("docs/DECISIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if m := headingRE.FindStringSubmatch(line); m != nil {
			anchors[docAnchor(m[2])] = true
		}
	}
	links := decisionLinkRE.FindAllStringSubmatch(string(rep), -1)
	if len(links) < 8 {
		t.Errorf("REPORT.md links %d sections to docs/DECISIONS.md, want one per section with a decision behind it", len(links))
	}
	for _, l := range links {
		if l[1] != "docs/DECISIONS.md" {
			t.Errorf("REPORT.md links %s, want docs/DECISIONS.md", l[1])
		}
		if !anchors[l[2]] {
			t.Errorf("REPORT.md links #%s, which is no heading of docs/DECISIONS.md", l[2])
		}
	}
}
