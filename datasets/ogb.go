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
	file := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }

	const labelFile = "raw/node-label.csv.gz"
	const featFile = "raw/node-feat.csv.gz"
	// The labels are capped by the feature rows, counted first without
	// keeping them: a small label file that inflates to many lines fails
	// at the first line too many instead of after it has filled memory.
	rowCount := 0
	if err := eachLine(fsys, featFile, dir, func([]byte) error { rowCount++; return nil }); err != nil {
		return nil, none, err
	}
	var labels []int
	lastLabelLine, beyond := 0, 0 // beyond: the line of the first label past the feature rows
	err := eachLine(fsys, labelFile, dir, func(line []byte) error {
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
		return nil, none, err
	}
	n := len(labels)
	numClasses := 0
	for i, y := range labels {
		if y >= n {
			// One label per line: report the line the label is on.
			return nil, none, fmt.Errorf("%s line %d: label %d out of range [0, %d): more classes than nodes", file(labelFile), lineOf(fsys, labelFile, i), y, n)
		}
		numClasses = max(numClasses, y+1)
	}
	if err := checkClasses(labels, numClasses, nil); err != nil {
		return nil, none, fmt.Errorf("%s: %w", file(labelFile), err)
	}

	var feat []float64
	cols, rows := -1, 0
	err = eachLine(fsys, featFile, dir, func(line []byte) error {
		k := bytes.Count(line, comma) + 1
		if cols < 0 {
			cols = k
			feat = make([]float64, 0, featureCapacity(fsys, featFile, n, cols))
		}
		if k != cols {
			return fmt.Errorf("%d values, the first line has %d", k, cols)
		}
		if rows == n {
			return fmt.Errorf("more feature rows than the %d labelled nodes of %s", n, file(labelFile))
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
		return nil, none, err
	}
	if beyond > 0 {
		return nil, none, fmt.Errorf("%s line %d: more labels than the %d feature rows of %s", file(labelFile), beyond, rowCount, file(featFile))
	}
	if rows != n {
		return nil, none, fmt.Errorf("%s: %d feature rows for %d labelled nodes in %s", file(featFile), rows, n, file(labelFile))
	}
	if cols > MaxFeatures {
		return nil, none, fmt.Errorf("%s: %d features, more than the %d a model can take", file(featFile), cols, MaxFeatures)
	}
	x, err := tensor.FromSlice(n, max(cols, 0), feat)
	if err != nil {
		return nil, none, fmt.Errorf("%s: %w", file(featFile), err)
	}

	const edgeFile = "raw/edge.csv.gz"
	var src, dst []int
	err = eachLine(fsys, edgeFile, dir, func(line []byte) error {
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
		return nil, none, err
	}
	adj, err := tensor.FromCOO(n, n, src, dst, nil)
	if err != nil {
		return nil, none, fmt.Errorf("%s: %w", file(edgeFile), err)
	}
	adj = graph.ToUndirected(adj)

	var sets [3][]int
	for s, name := range []string{"train", "valid", "test"} {
		err := eachLine(fsys, "split/time/"+name+".csv.gz", dir, func(line []byte) error {
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
			return nil, none, err
		}
	}
	split, err := graph.FixedSplit(sets[0], sets[1], sets[2], n)
	if err != nil {
		return nil, none, fmt.Errorf("%s: %w", file("split/time"), err)
	}
	g, err := graph.New("OGBNArxiv", adj, x, labels, numClasses, nil)
	if err != nil {
		return nil, none, fmt.Errorf("%s: %w", dir, err)
	}
	return g, split, nil
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
