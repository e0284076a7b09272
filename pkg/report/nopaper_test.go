package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCoreKnowsNoPaper keeps the paper in its plug-in (pkg/report/paper):
// no string of the report's own code names the paper's experiments,
// authors or claims. posteriordb.go's paragraph on the benchmark's
// evidence for claims 2–4 is the one exception left.
func TestCoreKnowsNoPaper(t *testing.T) {
	paper := regexp.MustCompile(`\b(fig[12][ab]|table1|svgd-anchor|Futami|AAAI)\b|[Cc]laims? [1-5]`)
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "posteriordb.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && paper.MatchString(lit.Value) {
				t.Errorf("%s: %s names the paper; it belongs in pkg/report/paper", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
}
