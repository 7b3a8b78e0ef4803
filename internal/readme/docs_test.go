package readme

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// declared maps each package name of the module (the last element of its
// import path, as code qualifies it: cuq, graph, uq, chart, …) to the
// exported identifiers its non-test files declare at top level, and to
// "Type.Method" for the methods of its types. Two packages with one name
// would share one set.
func declared(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "notebooks") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.Base(filepath.Dir(path))
		if f.Name.Name == "main" {
			return nil
		}
		names := out[pkg]
		if names == nil {
			names = map[string]bool{}
			out[pkg] = names
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
					continue
				}
				if recv := receiverType(d.Recv.List[0].Type); recv != "" {
					names[recv+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// receiverType returns the name of a method's receiver type: T for T, *T,
// T[P] and *T[P].
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// codeSpan matches inline code in Markdown; qualified matches a package
// name followed by an exported name (pkg.Name, and pkg.Type of
// pkg.Type.Method) at the start of a code span or after a non-identifier
// character.
var (
	codeSpan  = regexp.MustCompile("`[^`\n]+`")
	qualified = regexp.MustCompile(`(?:^|[^\w.])([a-z][a-z0-9]*)\.([A-Z]\w*)`)
)

// TestDocumentedNamesExist checks that every identifier the README, the
// notebooks' README and the docs name in code (inline spans and fenced
// blocks), qualified by a package of this module (cuq.GPN, graph.Split,
// chart.ARCOf; in uq.Measure.String the type Measure), is declared by that
// package: a renamed or removed function cannot leave the docs behind.
// Names qualified by anything else (variables such as pred.ARC, other
// modules) are not checked.
func TestDocumentedNamesExist(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	decl := declared(t, root)
	files := markdownFiles(t, root)
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		var spans []string
		for i, block := range strings.Split(string(b), "```") {
			if i%2 == 1 {
				spans = append(spans, block) // a fenced block
				continue
			}
			spans = append(spans, codeSpan.FindAllString(block, -1)...)
		}
		var missing []string
		for _, span := range spans {
			for _, m := range qualified.FindAllStringSubmatch(span, -1) {
				names, ok := decl[m[1]]
				if !ok {
					continue
				}
				checked++
				if name := m[1] + "." + m[2]; !names[m[2]] && !slices.Contains(missing, name) {
					missing = append(missing, name)
				}
			}
		}
		for _, name := range missing {
			t.Errorf("%s names %s, which package %s does not declare", file, name, strings.Split(name, ".")[0])
		}
	}
	if checked < 100 {
		t.Errorf("only %d qualified names found in %d files: is the pattern still right?", checked, len(files))
	}
}

// markdownFiles returns the Markdown files a user reads, relative to root:
// the README, the notebooks' and the replica's, and everything under docs/.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md", "notebooks/README.md", "scripts/replica/README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// link matches a Markdown link's target; heading matches a heading line.
var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} +(.+)$`)
)

// anchor returns the anchor GitHub gives a heading: lower case, spaces as
// hyphens, punctuation other than hyphens and underscores dropped.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocumentLinksResolve checks every relative link of the Markdown
// files a user reads: its file exists and, for a link into a Markdown
// file with #anchor, the file has a heading with that anchor. Moving or
// renaming a document cannot leave a dead link behind.
func TestDocumentLinksResolve(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range markdownFiles(t, root) {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := filepath.Join(root, file)
			if path != "" {
				dest = filepath.Join(filepath.Dir(dest), path)
			}
			checked++
			body, err := os.ReadFile(dest)
			if err != nil {
				if info, serr := os.Stat(dest); serr == nil && info.IsDir() {
					continue
				}
				t.Errorf("%s links to %s, which does not exist", file, target)
				continue
			}
			if frag == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			found := false
			for _, h := range heading.FindAllStringSubmatch(string(body), -1) {
				found = found || anchor(h[1]) == frag
			}
			if !found {
				t.Errorf("%s links to %s, which has no heading with anchor #%s", file, target, frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: is the pattern still right?", checked)
	}
}
