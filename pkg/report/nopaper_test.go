package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// coreFiles parses the report core's own Go files (not its tests, not
// pkg/report/paper).
func coreFiles(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	out := map[string]*ast.File{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = f
	}
	if len(out) == 0 {
		t.Fatal("no Go file of the report core found")
	}
	return fset, out
}

// TestCoreKnowsNoPaper keeps the paper in its plug-in (pkg/report/paper):
// no string of the report's own code names the paper's experiments,
// authors or claims.
func TestCoreKnowsNoPaper(t *testing.T) {
	paper := regexp.MustCompile(`\b(fig[12][ab]|table1|svgd-anchor|Futami|AAAI)\b|[Cc]laims? [1-5]`)
	fset, files := coreFiles(t)
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && paper.MatchString(lit.Value) {
				t.Errorf("%s: %s names the paper; it belongs in pkg/report/paper", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
}

// methodPackages are the packages of the methods, which the report core
// does not import: what it needs of a method comes from the kind's traits
// (harness.KindTraits), registered beside the method by the wiring.
var methodPackages = []string{"mmdfw", "hmc", "svgd", "sp", "sgld"}

// methodIdent matches an identifier that names a method.
var methodIdent = regexp.MustCompile(`(?i)mmdfw|svgd|hmc|sgld|stein`)

// TestCoreNamesNoMethod keeps the methods out of the report core: none of
// its files imports a method's package, and no identifier it declares or
// uses names a method. A new method needs no edit of the core, only its
// traits.
func TestCoreNamesNoMethod(t *testing.T) {
	fset, files := coreFiles(t)
	for _, f := range files {
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range methodPackages {
				if strings.HasSuffix(p, "/pkg/"+m) {
					t.Errorf("%s: imports %s; the core reads a method's traits (harness.KindTraits) instead", fset.Position(im.Pos()), p)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && methodIdent.MatchString(id.Name) {
				t.Errorf("%s: identifier %s names a method; it belongs in the kind's traits or pkg/report/paper", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
}
