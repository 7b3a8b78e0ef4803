package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
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
// the problem.
func LoadOGBArxiv(dir string) (*graph.Graph, graph.Split, error) {
	g, split, err := loadOGB(dir)
	if err != nil {
		return nil, graph.Split{}, fmt.Errorf("datasets: %w", err)
	}
	return g, split, nil
}

func loadOGB(dir string) (*graph.Graph, graph.Split, error) {
	var none graph.Split
	file := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }

	labelPath := file("raw/node-label.csv.gz")
	var labels []int
	err := eachLine(labelPath, func(fields [][]byte) error {
		y, err := oneInt(fields)
		if err != nil {
			return err
		}
		if y < 0 {
			return fmt.Errorf("label %d is negative", y)
		}
		labels = append(labels, y)
		return nil
	})
	if err != nil {
		return nil, none, err
	}
	n := len(labels)
	numClasses := 0
	for _, y := range labels {
		numClasses = max(numClasses, y+1)
	}
	if err := checkClasses(labels, numClasses, nil); err != nil {
		return nil, none, fmt.Errorf("%s: %w", labelPath, err)
	}

	featPath := file("raw/node-feat.csv.gz")
	var feat []float64
	cols, rows := -1, 0
	err = eachLine(featPath, func(fields [][]byte) error {
		if cols < 0 {
			cols = len(fields)
			feat = make([]float64, 0, n*cols)
		}
		if len(fields) != cols {
			return fmt.Errorf("%d values, the first line has %d", len(fields), cols)
		}
		for j, f := range fields {
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
	if rows != n {
		return nil, none, fmt.Errorf("%s: %d feature rows for %d labelled nodes in %s", featPath, rows, n, labelPath)
	}
	x, err := tensor.FromSlice(n, max(cols, 0), feat)
	if err != nil {
		return nil, none, fmt.Errorf("%s: %w", featPath, err)
	}

	edgePath := file("raw/edge.csv.gz")
	var src, dst []int
	err = eachLine(edgePath, func(fields [][]byte) error {
		if len(fields) != 2 {
			return fmt.Errorf("%d fields, want src,dst", len(fields))
		}
		e := [2]int{}
		for k, f := range fields {
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
		return nil, none, fmt.Errorf("%s: %w", edgePath, err)
	}
	adj = graph.ToUndirected(adj)

	var sets [3][]int
	for s, name := range []string{"train", "valid", "test"} {
		p := file("split/time/" + name + ".csv.gz")
		err := eachLine(p, func(fields [][]byte) error {
			i, err := oneInt(fields)
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

// eachLine calls fn with the comma-separated fields of every non-empty line
// of the gzip-compressed text file at path. Errors from fn are wrapped with
// the file and the 1-based line number.
func eachLine(path string, fn func(fields [][]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var fields [][]byte
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		fields = fields[:0]
		for {
			i := bytes.IndexByte(b, ',')
			if i < 0 {
				fields = append(fields, b)
				break
			}
			fields = append(fields, b[:i])
			b = b[i+1:]
		}
		if err := fn(fields); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s line %d: %w", path, line+1, err)
	}
	return nil
}

// oneInt parses a line holding a single integer.
func oneInt(fields [][]byte) (int, error) {
	if len(fields) != 1 {
		return 0, fmt.Errorf("%d fields, want one integer", len(fields))
	}
	return strconv.Atoi(string(fields[0]))
}
