// Package wasmbundle ships a Go program compiled to WebAssembly inside one
// self-contained HTML fragment, so that interactive widgets written in Go
// keep working in a notebook exported to HTML, opened from a file, with no
// kernel, no server and no network.
//
// Done builds the program with the Go toolchain (GOOS=js GOARCH=wasm, the
// portable kernels of -tags purego), compresses it with gzip and encodes
// it in base64, and writes one fragment holding, in order: a note saying
// why static pictures show; one element per widget, carrying the widget's
// spec in data-spec and a static fallback picture (a PNG data URL) as its
// content; and one script with the toolchain's wasm_exec.js inline and a
// loader that decompresses the program with DecompressionStream, starts it
// with WebAssembly.instantiate and passes it the id of the fragment's root
// element as its argument. The loader also stores the root element in
// globalThis.cuqxRoots[id], for pages (such as JupyterLab's outputs) that
// may run the script before the fragment is part of the document. The
// program is expected to replace each widget's fallback by the live widget
// and remove the note.
//
// Where scripts do not run (an untrusted notebook, an export with HTML
// sanitising, a preview such as GitHub's) the note and the pictures stay.
// The fragment should be shown once per page: the program is about a
// megabyte, and one program can mount every widget of a notebook.
package wasmbundle

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DefaultNote is the line shown above the fallback pictures until the
// program starts.
const DefaultNote = "These are static pictures at the starting values. The interactive version runs as " +
	"WebAssembly in this page's scripts, which have not run here: the notebook is not trusted, the HTML " +
	"export sanitised its scripts, or this is a preview (such as GitHub's) that shows no scripts. " +
	"Trust the notebook, or open its exported HTML in a browser."

// Widget is one element the program mounts: Spec is handed to it in the
// element's data-spec attribute; Fallback is the picture shown where
// scripts do not run, described by Alt.
type Widget struct {
	Spec     string
	Fallback image.Image
	Alt      string
}

// Builder configures a bundle; start it with New and finish it with Done.
type Builder struct {
	pkg     string
	dir     string
	note    string
	title   string
	widgets []Widget
	errs    []error
}

// New starts a bundle of the main package pkg: an import path, or a
// directory path starting with ./ or ../, as the go command takes it.
func New(pkg string) *Builder {
	b := &Builder{pkg: pkg, note: DefaultNote}
	if strings.TrimSpace(pkg) == "" {
		b.errs = append(b.errs, errors.New("wasmbundle.New: empty package path"))
	}
	return b
}

// Widget adds a widget. The fallback picture is required.
func (b *Builder) Widget(w Widget) *Builder {
	if w.Fallback == nil {
		b.errs = append(b.errs, fmt.Errorf("wasmbundle: widget %d has no fallback picture", len(b.widgets)))
	}
	b.widgets = append(b.widgets, w)
	return b
}

// Note replaces DefaultNote, the plain-text line shown with the fallback
// pictures.
func (b *Builder) Note(text string) *Builder { b.note = text; return b }

// Dir sets the directory the go command runs in, which decides the module
// the package is resolved in (default: the current directory).
func (b *Builder) Dir(dir string) *Builder { b.dir = dir; return b }

// Bundle is a built fragment.
type Bundle struct {
	id               string
	fragment         string
	wasmSize, gzSize int
	fallbackPNGBytes int
	wasmExecJSBytes  int
	widgets          int
}

// Sizes are the sizes in bytes of a bundle's parts.
type Sizes struct {
	Wasm       int // the WebAssembly program
	Gzip       int // the program compressed
	WasmExecJS int // the toolchain's wasm_exec.js
	Fallbacks  int // the fallback PNGs, before base64
	HTML       int // the whole fragment
}

// Done builds the program and assembles the fragment. It returns an error
// when no widget was added, a fallback picture is missing, the go command
// is not found, the build fails (with the compiler's output), or the
// toolchain has no wasm_exec.js.
func (b *Builder) Done() (*Bundle, error) {
	if len(b.widgets) == 0 {
		b.errs = append(b.errs, errors.New("wasmbundle: no widgets"))
	}
	if err := errors.Join(b.errs...); err != nil {
		return nil, err
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("wasmbundle: the go command is needed to build the WebAssembly program: %w", err)
	}
	wasm, err := build(goCmd, b.dir, b.pkg)
	if err != nil {
		return nil, err
	}
	execJS, err := wasmExecJS(goCmd)
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(wasm); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	var idb [6]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return nil, fmt.Errorf("wasmbundle: element id: %w", err)
	}
	bu := &Bundle{id: "cuqx-" + hex.EncodeToString(idb[:]), wasmSize: len(wasm), gzSize: gz.Len(),
		wasmExecJSBytes: len(execJS), widgets: len(b.widgets)}
	var f strings.Builder
	fmt.Fprintf(&f, "<div id=\"%s\" class=\"cuqx\">\n<style>%s</style>\n", bu.id, strings.ReplaceAll(css, "#ID", "#"+bu.id))
	fmt.Fprintf(&f, "<p class=\"cuqx-note\">%s</p>\n", html.EscapeString(b.note))
	for i, w := range b.widgets {
		var pb bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestCompression}
		if err := enc.Encode(&pb, w.Fallback); err != nil {
			return nil, fmt.Errorf("wasmbundle: widget %d: fallback picture: %w", i, err)
		}
		bu.fallbackPNGBytes += pb.Len()
		fmt.Fprintf(&f, "<div class=\"cuqx-widget\" data-spec=\"%s\"><img class=\"cuqx-fallback\" alt=\"%s\" src=\"data:image/png;base64,%s\"></div>\n",
			html.EscapeString(w.Spec), html.EscapeString(w.Alt), base64.StdEncoding.EncodeToString(pb.Bytes()))
	}
	f.WriteString("<script>\n")
	f.WriteString(execJS)
	f.WriteString("\n")
	f.WriteString(strings.NewReplacer("ID", bu.id, "WASM", base64.StdEncoding.EncodeToString(gz.Bytes())).Replace(loader))
	f.WriteString("</script>\n</div>\n")
	bu.fragment = f.String()
	return bu, nil
}

// build compiles pkg for js/wasm and returns the program.
func build(goCmd, dir, pkg string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "wasmbundle-")
	if err != nil {
		return nil, fmt.Errorf("wasmbundle: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "main.wasm")
	cmd := exec.Command(goCmd, "build", "-trimpath", "-tags", "purego", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("wasmbundle: building %s for js/wasm: %w\n%s", pkg, err, msg)
	}
	return os.ReadFile(out)
}

// wasmExecJS returns the toolchain's wasm_exec.js, the JavaScript side of
// Go's js/wasm port (in lib/wasm since Go 1.24, misc/wasm before).
func wasmExecJS(goCmd string) (string, error) {
	root, err := exec.Command(goCmd, "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("wasmbundle: go env GOROOT: %w", err)
	}
	var errs []error
	for _, sub := range []string{"lib", "misc"} {
		b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), sub, "wasm", "wasm_exec.js"))
		if err == nil {
			if strings.Contains(strings.ToLower(string(b)), "</script") {
				return "", errors.New("wasmbundle: wasm_exec.js contains </script and cannot be inlined")
			}
			return string(b), nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("wasmbundle: wasm_exec.js not found in the Go toolchain: %w", errors.Join(errs...))
}

// ID returns the id of the fragment's root element, the program's
// argument.
func (b *Bundle) ID() string { return b.id }

// HTML returns the fragment, to display as one text/html output.
func (b *Bundle) HTML() string { return b.fragment }

// Page returns a complete HTML document with the given title holding the
// fragment.
func (b *Bundle) Page(title string) string {
	return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html.EscapeString(title) +
		"</title>\n</head>\n<body>\n" + b.fragment + "</body>\n</html>\n"
}

// WriteFile writes Page(title) to path.
func (b *Bundle) WriteFile(path, title string) error {
	if err := os.WriteFile(path, []byte(b.Page(title)), 0o644); err != nil {
		return fmt.Errorf("wasmbundle: %w", err)
	}
	return nil
}

// Sizes returns the sizes of the bundle's parts.
func (b *Bundle) Sizes() Sizes {
	return Sizes{Wasm: b.wasmSize, Gzip: b.gzSize, WasmExecJS: b.wasmExecJSBytes, Fallbacks: b.fallbackPNGBytes, HTML: len(b.fragment)}
}

// css styles the fragment; #ID is replaced by the root element's id.
const css = `
#ID{font-family:system-ui,sans-serif;font-size:13px;line-height:1.35;max-width:980px}
#ID .cuqx-note{color:#555;font-style:italic}
#ID .cuqx-widget{border-top:1px solid #ddd;margin:10px 0;padding-top:4px}
#ID .cuqx-title{margin:4px 0;font-size:15px}
#ID .cuqx-about{margin:4px 0 8px;color:#333;max-width:900px}
#ID .cuqx-controls{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:2px 18px}
#ID .cuqx-control{display:flex;align-items:center;gap:6px}
#ID .cuqx-label{flex:0 0 11em}
#ID .cuqx-control input,#ID .cuqx-control select{flex:1 1 auto;min-width:0}
#ID .cuqx-value{flex:0 0 3.5em;text-align:right;font-variant-numeric:tabular-nums}
#ID canvas,#ID img.cuqx-fallback{display:block;max-width:100%;margin:6px 0}
#ID table.cuqx-table{border-collapse:collapse;margin:6px 0;font-variant-numeric:tabular-nums}
#ID table.cuqx-table caption{text-align:left;color:#444;padding-bottom:2px}
#ID table.cuqx-table th,#ID table.cuqx-table td{padding:2px 8px;border-bottom:1px solid #eee;text-align:right}
#ID table.cuqx-table tr>th:first-child{text-align:left}
#ID .cuqx-error{color:#a00;white-space:pre-wrap}
`

// loader starts the program; ID and WASM are replaced by the root
// element's id and the base64 of the gzip-compressed program.
const loader = `(async (script) => {
	const root = (script && script.closest(".cuqx")) || document.getElementById("ID");
	const note = root && root.querySelector(".cuqx-note");
	try {
		if (typeof WebAssembly !== "object" || typeof DecompressionStream !== "function") {
			throw new Error("this browser lacks WebAssembly or DecompressionStream");
		}
		const b64 = "WASM";
		const raw = atob(b64);
		const gz = new Uint8Array(raw.length);
		for (let i = 0; i < raw.length; i++) gz[i] = raw.charCodeAt(i);
		const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
		const wasm = await new Response(stream).arrayBuffer();
		(globalThis.cuqxRoots ??= {})["ID"] = root;
		const go = new Go();
		go.argv = ["wasm", "ID"];
		const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
		go.run(instance);
	} catch (err) {
		console.error(err);
		if (note) note.textContent = "The interactive version did not start (" + err + "); these are static pictures at the starting values.";
	}
})(document.currentScript);
`
