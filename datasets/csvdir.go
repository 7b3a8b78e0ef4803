package datasets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// Loaded is a graph read from the user's files: the graph, the user's node
// identifiers (IDs[i] names node i), the split the files give (nil when
// they give none) and a report of what loading changed.
type Loaded struct {
	Graph  *graph.Graph
	IDs    []string
	Split  *graph.Split
	Report Report
}

// Report counts what a loader read and what it changed to obtain an
// undirected graph without self loops.
type Report struct {
	Nodes, Unlabelled int
	// EdgeRows is the number of edge rows read; SelfLoops of them joined a
	// node to itself and were dropped, Duplicates repeated an earlier row
	// (same source and destination) and were coalesced.
	EdgeRows, SelfLoops, Duplicates int
	// Mirrored is the number of reverse edges added because only one
	// direction of a pair was given.
	Mirrored int
	// Edges is the number of undirected edges of the graph (Adj stores
	// each twice).
	Edges int
	// Features is the number of feature columns, Sparse whether they came
	// as node,feature,value triples.
	Features int
	Sparse   bool
	// Classes is the number of classes; NamedClasses whether labels were
	// names (mapped to indices) rather than class indices.
	Classes      int
	NamedClasses bool
}

// String summarises the report on one line.
func (r Report) String() string {
	kind := "dense"
	if r.Sparse {
		kind = "sparse"
	}
	return fmt.Sprintf("%d nodes (%d unlabelled), %d classes, %d %s features; %d edge rows: %d self loops dropped, %d duplicates coalesced, %d reverse edges added, %d undirected edges",
		r.Nodes, r.Unlabelled, r.Classes, r.Features, kind, r.EdgeRows, r.SelfLoops, r.Duplicates, r.Mirrored, r.Edges)
}

// LoadCSV reads a node-classification graph from a directory of delimited
// text files. Each file is named NAME.csv or NAME.tsv (not both):
//
//	labels      node,label      one row per node, required
//	edges       src,dst         one row per edge, required
//	features    node,x1,...,xF  one row per node (dense features), or
//	sparse_features  node,feature,value  one row per non-zero entry
//	classes     name            one class name per row, optional
//	split       node,set        set is train, val (or valid) or test, optional
//
// Exactly one of features and sparse_features is required.
//
// Nodes. The rows of labels define the nodes: node i is the i-th row, and
// IDs[i] its identifier, any string (integers are strings too). Every
// other file refers to nodes by these identifiers; an identifier not in
// labels is an error. An empty label marks an unlabelled node (label -1).
//
// Classes. With a classes file, class c is its c-th row and a label is a
// class name or a class index in [0, C). Without one, labels that are all
// non-negative integers are class indices (C = max+1, no class names);
// otherwise the distinct labels sorted in byte order are the class names,
// class c the c-th of them. Every class needs at least one node.
//
// Features are taken as given (neither binarized nor normalised:
// graph.NormalizeFeatures divides rows by their sums). Dense: every node
// has exactly one row, of the same width. Sparse: feature is a column
// index in [0, MaxFeatures), F is the largest plus one, and an entry given
// twice is an error. Values must be finite numbers.
//
// Edges. Each row (u, v) is an edge; the adjacency is the 0/1 pattern of
// A + Aᵀ without diagonal (self loops dropped, duplicates coalesced,
// directed edges made undirected, as LoadNPZ), each step counted in the
// Report.
//
// Format. The delimiter is a tab in .tsv files and in .csv files whose
// first line has a tab but no comma, else a comma; fields may be quoted as
// in RFC 4180, lines starting with # are comments and blank lines are
// skipped. A first line is a header, and skipped, when it is unambiguous:
// in labels, when its two fields are a node column name (node, id,
// node_id) and a label column name (label, class, y); in the other files
// referring to nodes, when its first field is not a node identifier but a
// column name (node, id, node_id, src, source, from). The classes file has
// no header.
//
// Errors name the file, the line and what was expected. Nothing is
// allocated from a size a file states: every size is the count of rows or
// fields actually read.
func LoadCSV(dir string) (*Loaded, error) {
	l, err := loadCSV(os.DirFS(dir), dir)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	return l, nil
}

// csvFiles are the base names of the files of the CSV layout.
var csvFiles = []string{"labels", "edges", "features", "sparse_features", "classes", "split"}

// loadCSV reads the CSV layout from fsys; dir names it in errors.
func loadCSV(fsys fs.FS, dir string) (*Loaded, error) {
	c := csvDir{fsys: fsys, dir: dir}
	if err := c.find(); err != nil {
		return nil, err
	}
	classNames, classIndex, err := c.classes()
	if err != nil {
		return nil, err
	}
	labels, classNames, err := c.labels(classNames, classIndex)
	if err != nil {
		return nil, err
	}
	n := len(labels)
	numClasses, named := len(classNames), classNames != nil
	if !named {
		for _, y := range labels {
			numClasses = max(numClasses, y+1)
		}
	}
	if err := checkClasses(slices.DeleteFunc(slices.Clone(labels), func(y int) bool { return y < 0 }), numClasses, classNames); err != nil {
		return nil, fmt.Errorf("%s: %w", c.at("labels"), err)
	}
	rep := Report{Nodes: n}
	var x tensor.Matrix
	if rel := c.files["features"]; rel != "" {
		x, err = readDenseFeatures(fsys, dir, rel, n, c.node, c.isNodeHeader)
	} else {
		rep.Sparse = true
		x, err = readSparseFeatures(fsys, dir, c.files["sparse_features"], n, c.node, c.isNodeHeader)
	}
	if err != nil {
		return nil, err
	}
	adj, err := c.edges(&rep)
	if err != nil {
		return nil, err
	}
	split, err := c.split(labels)
	if err != nil {
		return nil, err
	}
	g, err := graph.New(filepath.Base(filepath.Clean(dir)), adj, graph.CompactFeatures(x), labels, numClasses, classNames)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	for _, y := range labels {
		if y < 0 {
			rep.Unlabelled++
		}
	}
	_, rep.Features = x.Dims()
	rep.Classes, rep.NamedClasses = numClasses, named
	return &Loaded{Graph: g, IDs: c.ids, Split: split, Report: rep}, nil
}

// csvDir reads the tables of a CSV directory in fsys, whose paths errors
// name under dir.
type csvDir struct {
	fsys  fs.FS
	dir   string
	files map[string]string // base name (csvFiles) → file found, relative to dir
	ids   []string          // the nodes' ids in the labels table's order
	index map[string]int    // id → node
}

// at returns the path of the table base under dir.
func (c *csvDir) at(base string) string { return filepath.Join(c.dir, c.files[base]) }

// find looks for every table, and checks that those a graph needs are
// there.
func (c *csvDir) find() error {
	c.files = map[string]string{}
	for _, base := range csvFiles {
		rel, err := findTable(c.fsys, c.dir, base)
		if err != nil {
			return err
		}
		if rel != "" {
			c.files[base] = rel
		}
	}
	for _, base := range []string{"labels", "edges"} {
		if c.files[base] == "" {
			return fmt.Errorf("%s: no %s.csv or %s.tsv", c.dir, base, base)
		}
	}
	if (c.files["features"] == "") == (c.files["sparse_features"] == "") {
		return fmt.Errorf("%s: want exactly one of features.csv (dense) and sparse_features.csv (triples)", c.dir)
	}
	return nil
}

// classes reads the class names of the optional classes table, in order;
// nil without one.
func (c *csvDir) classes() (names []string, index map[string]int, err error) {
	index = map[string]int{}
	rel := c.files["classes"]
	if rel == "" {
		return nil, index, nil
	}
	err = readTable(c.fsys, c.dir, rel, nil, func(line int, rec []string) error {
		if len(rec) != 1 {
			return fmt.Errorf("%d fields, want one class name", len(rec))
		}
		if _, dup := index[rec[0]]; dup {
			return fmt.Errorf("class %q given twice", rec[0])
		}
		index[rec[0]] = len(names)
		names = append(names, rec[0])
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("%s: no classes", c.at("classes"))
	}
	return names, index, nil
}

// labels reads the nodes and their labels (see classify), keeping the
// nodes' ids, and returns the labels and the class names.
func (c *csvDir) labels(classNames []string, classIndex map[string]int) ([]int, []string, error) {
	var raw []string
	var labelLine []int
	c.index = map[string]int{}
	isLabelHeader := func(rec []string) bool {
		return len(rec) == 2 && isName(rec[0], "node", "id", "node_id") && isName(rec[1], "label", "class", "y")
	}
	err := readTable(c.fsys, c.dir, c.files["labels"], isLabelHeader, func(line int, rec []string) error {
		if len(rec) != 2 {
			return fmt.Errorf("%d fields, want node,label", len(rec))
		}
		if _, dup := c.index[rec[0]]; dup {
			return fmt.Errorf("node %q given twice", rec[0])
		}
		c.index[rec[0]] = len(c.ids)
		c.ids = append(c.ids, rec[0])
		raw = append(raw, rec[1])
		labelLine = append(labelLine, line)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(c.ids) == 0 {
		return nil, nil, fmt.Errorf("%s: no nodes", c.at("labels"))
	}
	labels, classNames, err := classify(raw, classNames, classIndex, len(c.ids))
	if err != nil {
		var le *labelError
		if errors.As(err, &le) {
			return nil, nil, fmt.Errorf("%s line %d: %s", c.at("labels"), labelLine[le.node], le.msg)
		}
		return nil, nil, fmt.Errorf("%s: %w", c.at("labels"), err)
	}
	return labels, classNames, nil
}

// node returns the node of an id of the labels table.
func (c *csvDir) node(id string) (int, error) {
	i, ok := c.index[id]
	if !ok {
		return 0, fmt.Errorf("unknown node %q (not in %s)", id, c.files["labels"])
	}
	return i, nil
}

// isNodeHeader tells a header line of a table keyed by node from a node's
// line.
func (c *csvDir) isNodeHeader(rec []string) bool {
	_, known := c.index[rec[0]]
	return !known && isName(rec[0], "node", "id", "node_id", "src", "source", "from")
}

// edges reads the edge list and returns the undirected adjacency, with
// what it changed in rep (see undirected).
func (c *csvDir) edges(rep *Report) (*tensor.CSR, error) {
	var src, dst []int
	err := readTable(c.fsys, c.dir, c.files["edges"], c.isNodeHeader, func(line int, rec []string) error {
		if len(rec) != 2 {
			return fmt.Errorf("%d fields, want src,dst", len(rec))
		}
		u, err := c.node(rec[0])
		if err != nil {
			return fmt.Errorf("source: %w", err)
		}
		v, err := c.node(rec[1])
		if err != nil {
			return fmt.Errorf("destination: %w", err)
		}
		src, dst = append(src, u), append(dst, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	adj, err := undirected(len(c.ids), src, dst, rep)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.at("edges"), err)
	}
	return adj, nil
}

// split reads the optional split table; nil without one.
func (c *csvDir) split(labels []int) (*graph.Split, error) {
	rel := c.files["split"]
	if rel == "" {
		return nil, nil
	}
	var sets [3][]int
	err := readTable(c.fsys, c.dir, rel, c.isNodeHeader, func(line int, rec []string) error {
		if len(rec) != 2 {
			return fmt.Errorf("%d fields, want node,set", len(rec))
		}
		i, err := c.node(rec[0])
		if err != nil {
			return err
		}
		s := splitSet(rec[1])
		if s < 0 {
			return fmt.Errorf("set %q, want train, val or test", rec[1])
		}
		if labels[i] < 0 {
			return fmt.Errorf("node %q is unlabelled and cannot be in a split", rec[0])
		}
		sets[s] = append(sets[s], i)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s, err := graph.FixedSplit(sets[0], sets[1], sets[2], len(c.ids))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.at("split"), err)
	}
	return &s, nil
}

// labelError is a bad label of one node.
type labelError struct {
	node int
	msg  string
}

func (e *labelError) Error() string { return e.msg }

// classify maps the raw labels to class indices as LoadCSV documents,
// returning the class names (nil for integer labels without a classes
// file).
func classify(raw, classNames []string, classIndex map[string]int, n int) ([]int, []string, error) {
	if classNames != nil {
		labels, err := namedLabels(raw, classNames, classIndex)
		if err != nil {
			return nil, nil, err
		}
		return labels, classNames, nil
	}
	labels := make([]int, len(raw))
	integers := true
	for i, s := range raw {
		if s == "" {
			labels[i] = -1
			continue
		}
		c, err := strconv.Atoi(s)
		if err != nil || c < 0 {
			integers = false
			break
		}
		if c >= n {
			return nil, nil, &labelError{i, fmt.Sprintf("label %d beyond the %d classes %d nodes can have", c, n, n)}
		}
		labels[i] = c
	}
	if integers {
		return labels, nil, nil
	}
	seen := map[string]bool{}
	for _, s := range raw {
		if s != "" && !seen[s] {
			seen[s] = true
			classNames = append(classNames, s)
		}
	}
	slices.Sort(classNames)
	for c, s := range classNames {
		classIndex[s] = c
	}
	for i, s := range raw {
		if s == "" {
			labels[i] = -1
		} else {
			labels[i] = classIndex[s]
		}
	}
	return labels, classNames, nil
}

// namedLabels maps the raw labels to the classes of a classes file: a
// class name, or an integer index into classNames.
func namedLabels(raw, classNames []string, classIndex map[string]int) ([]int, error) {
	labels := make([]int, len(raw))
	for i, s := range raw {
		if s == "" {
			labels[i] = -1
			continue
		}
		if c, ok := classIndex[s]; ok {
			labels[i] = c
			continue
		}
		c, err := strconv.Atoi(s)
		if err != nil {
			return nil, &labelError{i, fmt.Sprintf("label %q is not a class of the classes file", s)}
		}
		if c < 0 || c >= len(classNames) {
			return nil, &labelError{i, fmt.Sprintf("label %d beyond the %d classes of the classes file", c, len(classNames))}
		}
		labels[i] = c
	}
	return labels, nil
}

// readDenseFeatures reads one row "node,x1,...,xF" per node. Rows are
// kept in file order until all are read, so the matrix is no larger than
// the values the file holds.
func readDenseFeatures(fsys fs.FS, dir, rel string, n int, node func(string) (int, error), isHeader func([]string) bool) (*tensor.Dense, error) {
	cols := -1
	var order []int
	var vals []float64
	seen := make([]int, n) // line of each node's row, 0 when none yet
	err := readTable(fsys, dir, rel, isHeader, func(line int, rec []string) error {
		if cols < 0 {
			cols = len(rec) - 1
			if cols < 1 {
				return fmt.Errorf("%d fields, want node,x1,...,xF with at least one feature", len(rec))
			}
			if cols > MaxFeatures {
				return fmt.Errorf("%d features, more than the %d a model can take", cols, MaxFeatures)
			}
		}
		if len(rec) != cols+1 {
			return fmt.Errorf("%d fields, the first row has %d (node and %d features)", len(rec), cols+1, cols)
		}
		i, err := node(rec[0])
		if err != nil {
			return err
		}
		if seen[i] != 0 {
			return fmt.Errorf("second row of node %q (first on line %d)", rec[0], seen[i])
		}
		seen[i] = line
		for j, f := range rec[1:] {
			v, err := parseValue(f)
			if err != nil {
				return fmt.Errorf("feature %d of node %q: %w", j+1, rec[0], err)
			}
			vals = append(vals, v)
		}
		order = append(order, i)
		return nil
	})
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, rel)
	if len(order) != n {
		for i, l := range seen {
			if l == 0 {
				return nil, fmt.Errorf("%s: no row for node %d of the labels file (%d rows for %d nodes)", path, i, len(order), n)
			}
		}
	}
	x := tensor.New(n, cols)
	for k, i := range order {
		copy(x.Row(i), vals[k*cols:(k+1)*cols])
	}
	return x, nil
}

// readSparseFeatures reads "node,feature,value" triples.
func readSparseFeatures(fsys fs.FS, dir, rel string, n int, node func(string) (int, error), isHeader func([]string) bool) (*tensor.CSR, error) {
	var ri, ci []int
	var val []float64
	first := map[[2]int]int{}
	cols := 0
	err := readTable(fsys, dir, rel, isHeader, func(line int, rec []string) error {
		if len(rec) != 3 {
			return fmt.Errorf("%d fields, want node,feature,value", len(rec))
		}
		i, err := node(rec[0])
		if err != nil {
			return err
		}
		j, err := strconv.Atoi(rec[1])
		if err != nil || j < 0 || j >= MaxFeatures {
			return fmt.Errorf("feature %q, want a column index in [0, %d)", rec[1], MaxFeatures)
		}
		v, err := parseValue(rec[2])
		if err != nil {
			return fmt.Errorf("value of feature %d of node %q: %w", j, rec[0], err)
		}
		if l, dup := first[[2]int{i, j}]; dup {
			return fmt.Errorf("feature %d of node %q given twice (first on line %d)", j, rec[0], l)
		}
		first[[2]int{i, j}] = line
		ri, ci, val = append(ri, i), append(ci, j), append(val, v)
		cols = max(cols, j+1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cols == 0 {
		return nil, fmt.Errorf("%s: no features", filepath.Join(dir, rel))
	}
	return tensor.FromCOO(n, cols, ri, ci, val)
}

// parseValue parses a finite number.
func parseValue(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return v, nil
}

// splitSet returns 0, 1 or 2 for train, val and test, -1 otherwise.
func splitSet(s string) int {
	switch strings.ToLower(s) {
	case "train":
		return 0
	case "val", "valid", "validation":
		return 1
	case "test":
		return 2
	}
	return -1
}

// isName reports whether s is one of the column names, ignoring case.
func isName(s string, names ...string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(s, n) })
}

// findTable returns the file of fsys named base.csv or base.tsv, "" when
// neither exists.
func findTable(fsys fs.FS, dir, base string) (string, error) {
	var found []string
	for _, ext := range []string{".csv", ".tsv"} {
		if _, err := fs.Stat(fsys, base+ext); err == nil {
			found = append(found, base+ext)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", filepath.Join(dir, base+ext), pathless(err))
		}
	}
	if len(found) > 1 {
		return "", fmt.Errorf("%s: both %s and %s: keep one", dir, found[0], found[1])
	}
	if len(found) == 0 {
		return "", nil
	}
	return found[0], nil
}

// readTable calls fn with the line number and fields of every record of
// the delimited file rel, skipping a first record isHeader accepts (when
// isHeader is not nil). Errors are wrapped with the file's path and line.
func readTable(fsys fs.FS, dir, rel string, isHeader func([]string) bool, fn func(line int, rec []string) error) error {
	path := filepath.Join(dir, rel)
	f, err := fsys.Open(rel)
	if err != nil {
		return fmt.Errorf("%s: %w", path, pathless(err))
	}
	defer f.Close()
	br := bufio.NewReader(f)
	r := csv.NewReader(br)
	r.Comma = delimiter(br, strings.HasSuffix(rel, ".tsv"))
	r.Comment = '#'
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	first := true
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return fmt.Errorf("%s line %d: %w", path, pe.Line, pe.Err)
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		for k := range rec {
			rec[k] = strings.TrimSpace(rec[k])
		}
		if first {
			first = false
			if isHeader != nil && isHeader(rec) {
				continue
			}
		}
		if err := fn(line, rec); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
	}
}

// delimiter returns a tab for .tsv files and for files whose first line
// has a tab but no comma, else a comma.
func delimiter(br *bufio.Reader, tsv bool) rune {
	if tsv {
		return '\t'
	}
	head, _ := br.Peek(4096)
	if k := bytes.IndexByte(head, '\n'); k >= 0 {
		head = head[:k]
	}
	if bytes.IndexByte(head, '\t') >= 0 && bytes.IndexByte(head, ',') < 0 {
		return '\t'
	}
	return ','
}

// undirected returns the n×n adjacency of the edges (src[k], dst[k]), all
// in [0, n): the 0/1 pattern of A + Aᵀ without diagonal. It counts in rep
// the edge rows, the self loops dropped, the repeated rows coalesced, the
// reverse edges added and the undirected edges.
func undirected(n int, src, dst []int, rep *Report) (*tensor.CSR, error) {
	rep.EdgeRows = len(src)
	k := 0
	for e := range src {
		if src[e] == dst[e] {
			rep.SelfLoops++
			continue
		}
		src[k], dst[k] = src[e], dst[e]
		k++
	}
	src, dst = src[:k], dst[:k]
	directed, err := tensor.FromCOO(n, n, src, dst, nil)
	if err != nil {
		return nil, err
	}
	adj := graph.ToUndirected(directed)
	rep.Duplicates = k - directed.NNZ()
	rep.Mirrored = adj.NNZ() - directed.NNZ()
	rep.Edges = adj.NNZ() / 2
	return adj, nil
}
