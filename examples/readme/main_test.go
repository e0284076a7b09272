package main

import (
	"os"
	"strings"
	"testing"
)

// README.md shows this program verbatim (from its package clause on).
func TestREADMEShowsThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	prog := string(src[strings.Index(string(src), "package main"):])
	_, block, ok := strings.Cut(string(readme), "## MMD-FW on your own posterior")
	if !ok {
		t.Fatal(`README.md has no section "MMD-FW on your own posterior"`)
	}
	_, block, ok = strings.Cut(block, "```go\n")
	block, _, ok2 := strings.Cut(block, "```\n")
	if !ok || !ok2 {
		t.Fatal("the section has no go code block")
	}
	if block != prog {
		t.Errorf("README.md's example differs from examples/readme/main.go:\n%s\nwant:\n%s", block, prog)
	}
}

func Example() {
	main()
	// Output: 337 particles, mean (0.07, 0.89), flagged: false
}
