package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// LoadOGBArxiv reads OGBN Arxiv (or any OGB node-property dataset with the
// same layout) from its raw OGB directory dir:
//
//	raw/edge.csv.gz        one directed edge "src,dst" per line
//	raw/node-feat.csv.gz   one line of comma-separated floats per node
//	raw/node-label.csv.gz  one class index per node
//	split/time/{train,valid,test}.csv.gz  one node index per line
//
// It processes them as the reference code does through PyG: the edges are
// made undirected (Adj is the coalesced 0/1 pattern of A + Aᵀ, self loops
// kept as they are), the features are kept dense and not normalised, and
// NumClasses is max(label)+1. The official split is returned as a
// graph.Split (every other node Unused). Errors name the file, the line and
// the problem. Sizes are never taken on trust: lines are at most
// maxLineBytes long, the labels are capped by the feature rows (counted
// first, without keeping them), and the feature matrix grows row by row up
// to the number of labelled nodes, so a small file cannot make the loader
// reserve more memory than its contents decode to.
func LoadOGBArxiv(dir string) (*graph.Graph, graph.Split, error) {
	g, split, err := loadOGB(os.DirFS(dir), dir)
	if err != nil {
		return nil, graph.Split{}, fmt.Errorf("datasets: %w", err)
	}
	return g, split, nil
}

// maxLineBytes bounds a line of an OGB CSV file. OGBN Arxiv's longest lines
// (128 features) are under 2 KB; a line of this length holds up to half a
// million values.
const maxLineBytes = 1 << 20

// loadOGB reads the OGB layout from fsys; dir names it in errors.
func loadOGB(fsys fs.FS, dir string) (*graph.Graph, graph.Split, error) {
	var none graph.Split
	o := ogbDir{fsys: fsys, dir: dir}
	labels, numClasses, beyond, err := o.labels()
	if err != nil {
		return nil, none, err
	}
	n := len(labels)
	x, err := o.features(n)
	if err != nil {
		return nil, none, err
	}
	if beyond > 0 {
		return nil, none, fmt.Errorf("%s line %d: more labels than the %d feature rows of %s", o.file(ogbLabels), beyond, n, o.file(ogbFeatures))
	}
	adj, err := o.edges(n)
	if err != nil {
		return nil, none, err
	}
	split, err := o.split(n)
	if err != nil {
		return nil, none, err
	}
	g, err := graph.New("OGBNArxiv", adj, x, labels, numClasses, nil)
	if err != nil {
		return nil, none, fmt.Errorf("%s: %w", dir, err)
	}
	return g, split, nil
}

// ogbDir reads the files of an OGB node-property dataset in fsys, whose
// paths errors name under dir.
type ogbDir struct {
	fsys fs.FS
	dir  string
}

// The files of an OGB node-property dataset.
const (
	ogbLabels   = "raw/node-label.csv.gz"
	ogbFeatures = "raw/node-feat.csv.gz"
	ogbEdges    = "raw/edge.csv.gz"
)

// file returns the path of rel under the dataset's directory.
func (o ogbDir) file(rel string) string { return filepath.Join(o.dir, filepath.FromSlash(rel)) }

// labels reads one label per node. The labels are capped by the feature
// rows, counted first without keeping them: a small label file that
// inflates to many lines stops at the first line too many, beyond, instead
// of filling memory (the caller reports it once the features are read).
func (o ogbDir) labels() (labels []int, numClasses, beyond int, err error) {
	rowCount := 0
	if err := eachLine(o.fsys, ogbFeatures, o.dir, func([]byte) error { rowCount++; return nil }); err != nil {
		return nil, 0, 0, err
	}
	lastLabelLine := 0
	err = eachLine(o.fsys, ogbLabels, o.dir, func(line []byte) error {
		if len(labels) == rowCount {
			beyond = lastLabelLine
			return errStop
		}
		y, err := oneInt(line)
		if err != nil {
			return err
		}
		if y < 0 {
			return fmt.Errorf("label %d is negative", y)
		}
		labels = append(labels, y)
		return nil
	}, &lastLabelLine)
	if err != nil {
		return nil, 0, 0, err
	}
	n := len(labels)
	for i, y := range labels {
		if y >= n {
			// One label per line: report the line the label is on.
			return nil, 0, 0, fmt.Errorf("%s line %d: label %d out of range [0, %d): more classes than nodes", o.file(ogbLabels), lineOf(o.fsys, ogbLabels, i), y, n)
		}
		numClasses = max(numClasses, y+1)
	}
	if err := checkClasses(labels, numClasses, nil); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", o.file(ogbLabels), err)
	}
	return labels, numClasses, beyond, nil
}

// features reads the n×F feature matrix, one row per line.
func (o ogbDir) features(n int) (*tensor.Dense, error) {
	var feat []float64
	cols, rows := -1, 0
	err := eachLine(o.fsys, ogbFeatures, o.dir, func(line []byte) error {
		k := bytes.Count(line, comma) + 1
		if cols < 0 {
			cols = k
			feat = make([]float64, 0, featureCapacity(o.fsys, ogbFeatures, n, cols))
		}
		if k != cols {
			return fmt.Errorf("%d values, the first line has %d", k, cols)
		}
		if rows == n {
			return fmt.Errorf("more feature rows than the %d labelled nodes of %s", n, o.file(ogbLabels))
		}
		for j, f := range fieldsOf(line) {
			v, err := strconv.ParseFloat(string(f), 64)
			if err != nil {
				return fmt.Errorf("value %d: %w", j+1, err)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("value %d is %v", j+1, v)
			}
			feat = append(feat, v)
		}
		rows++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows != n {
		return nil, fmt.Errorf("%s: %d feature rows for %d labelled nodes in %s", o.file(ogbFeatures), rows, n, o.file(ogbLabels))
	}
	if cols > MaxFeatures {
		return nil, fmt.Errorf("%s: %d features, more than the %d a model can take", o.file(ogbFeatures), cols, MaxFeatures)
	}
	x, err := tensor.FromSlice(n, max(cols, 0), feat)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.file(ogbFeatures), err)
	}
	return x, nil
}

// edges reads the edge list, one src,dst pair per line, and returns the
// undirected adjacency of the n nodes.
func (o ogbDir) edges(n int) (*tensor.CSR, error) {
	var src, dst []int
	err := eachLine(o.fsys, ogbEdges, o.dir, func(line []byte) error {
		if k := bytes.Count(line, comma) + 1; k != 2 {
			return fmt.Errorf("%d fields, want src,dst", k)
		}
		e := [2]int{}
		for k, f := range fieldsOf(line) {
			v, err := strconv.Atoi(string(f))
			if err != nil {
				return err
			}
			if v < 0 || v >= n {
				return fmt.Errorf("node index %d out of range [0, %d)", v, n)
			}
			e[k] = v
		}
		src, dst = append(src, e[0]), append(dst, e[1])
		return nil
	})
	if err != nil {
		return nil, err
	}
	adj, err := tensor.FromCOO(n, n, src, dst, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.file(ogbEdges), err)
	}
	return graph.ToUndirected(adj), nil
}

// split reads the time split: the node indices of train, valid and test.
func (o ogbDir) split(n int) (graph.Split, error) {
	var sets [3][]int
	for s, name := range []string{"train", "valid", "test"} {
		err := eachLine(o.fsys, "split/time/"+name+".csv.gz", o.dir, func(line []byte) error {
			i, err := oneInt(line)
			if err != nil {
				return err
			}
			if i < 0 || i >= n {
				return fmt.Errorf("node index %d out of range [0, %d)", i, n)
			}
			sets[s] = append(sets[s], i)
			return nil
		})
		if err != nil {
			return graph.Split{}, err
		}
	}
	split, err := graph.FixedSplit(sets[0], sets[1], sets[2], n)
	if err != nil {
		return graph.Split{}, fmt.Errorf("%s: %w", o.file("split/time"), err)
	}
	return split, nil
}

// featureCapacity is the room to reserve for the n×cols feature values of
// the gzip file rel: all of them when the file can hold that many, else
// what it can hold. Deflate expands at most 1032-fold and every value takes
// at least two bytes of text (a digit and a separator), so the file's size
// bounds its values without reading it.
func featureCapacity(fsys fs.FS, rel string, n, cols int) int {
	st, err := fs.Stat(fsys, rel)
	if err != nil {
		return 0
	}
	bound := st.Size()/2*1032 + int64(cols)
	if hi, lo := bits.Mul64(uint64(n), uint64(cols)); hi == 0 && lo <= uint64(bound) {
		return int(lo)
	}
	return int(bound)
}

// lineOf returns the 1-based line of rel that holds its k-th non-empty
// line (0-based); files without blank lines give k+1.
func lineOf(fsys fs.FS, rel string, k int) int {
	line, seen := 0, 0
	eachLine(fsys, rel, "", func([]byte) error {
		if seen == k {
			return errStop
		}
		seen++
		return nil
	}, &line)
	return line
}

// eachLine calls fn with every non-empty line, without surrounding white
// space, of the gzip-compressed text file rel in fsys. Errors, from fn or from
// reading, are wrapped with the file's path under dir and the 1-based line
// number. A line longer than maxLineBytes is an error. When at is given,
// it receives the number of the last line read.
func eachLine(fsys fs.FS, rel, dir string, fn func(line []byte) error, at ...*int) error {
	path := filepath.Join(dir, filepath.FromSlash(rel))
	f, err := fsys.Open(rel)
	if err != nil {
		return fmt.Errorf("%s: %w", path, pathless(err))
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 64<<10), maxLineBytes)
	line := 0
	for sc.Scan() {
		line++
		if len(at) > 0 {
			*at[0] = line
		}
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := fn(b); err == errStop {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err == bufio.ErrTooLong {
		return fmt.Errorf("%s line %d: line longer than %d bytes", path, line+1, maxLineBytes)
	} else if err != nil {
		return fmt.Errorf("%s line %d: %w", path, line+1, err)
	}
	return nil
}

// errStop ends eachLine early without an error.
var errStop = errors.New("stop")

// pathless strips the *fs.PathError of an fs.FS open, whose path is
// relative to the FS, so that messages name the file once, by its full path.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

var comma = []byte{','}

// fieldsOf yields the comma-separated fields of line with their 0-based
// positions.
func fieldsOf(line []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		for j := 0; ; j++ {
			f, rest, more := bytes.Cut(line, comma)
			if !yield(j, f) || !more {
				return
			}
			line = rest
		}
	}
}

// oneInt parses a line holding a single integer.
func oneInt(line []byte) (int, error) {
	if k := bytes.Count(line, comma) + 1; k != 1 {
		return 0, fmt.Errorf("%d fields, want one integer", k)
	}
	return strconv.Atoi(string(line))
}
