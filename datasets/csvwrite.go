package datasets

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
)

// WriteCSV writes the graph d.Graph to the directory dir (created if
// needed) in the layout LoadCSV reads, as comma-separated files with a
// header row: labels.csv with one row per node in node order (IDs[i], or
// i when d.IDs is nil; an empty label for unlabelled nodes), classes.csv
// when the graph has class names (labels are then written as names),
// edges.csv with every undirected edge {i, j}, i < j, once (self loops
// and edge weights are not written), features.csv for dense features or
// sparse_features.csv for CSR ones (the stored entries), and split.csv
// when d.Split is not nil (its Train, Val and Test nodes). Values are
// written in the shortest form that reads back to the same float64, so
// LoadCSV returns an equal graph for every graph without self loops.
func WriteCSV(dir string, d *Loaded) error {
	if err := writeCSV(dir, d); err != nil {
		return fmt.Errorf("datasets: WriteCSV: %w", err)
	}
	return nil
}

func writeCSV(dir string, d *Loaded) error {
	ids, err := checkWritable(d)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g := d.Graph
	if err := writeLabels(dir, g, ids); err != nil {
		return err
	}
	if err := writeEdges(dir, g.Adj, ids); err != nil {
		return err
	}
	if err := writeFeatures(dir, g, ids); err != nil || d.Split == nil {
		return err
	}
	return writeSplit(dir, *d.Split, ids)
}

// checkWritable checks that d can be written as CSV tables that read back
// alike, and returns the node identifiers to write (0, 1, … when d has
// none).
func checkWritable(d *Loaded) ([]string, error) {
	g := d.Graph
	if err := g.Validate(); err != nil {
		return nil, err
	}
	ids := d.IDs
	if ids == nil {
		ids = make([]string, g.N)
		for i := range ids {
			ids[i] = strconv.Itoa(i)
		}
	}
	if len(ids) != g.N {
		return nil, fmt.Errorf("%d node identifiers for %d nodes", len(ids), g.N)
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !plainField(id) || seen[id] {
			return nil, fmt.Errorf("node identifier %q is empty, repeated, starts with # or has surrounding space", id)
		}
		seen[id] = true
	}
	for _, name := range g.ClassNames {
		if !plainField(name) {
			return nil, fmt.Errorf("class name %q is empty, starts with # or has surrounding space", name)
		}
	}
	if d.Split != nil {
		if err := d.Split.Validate(g.N); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// writeLabels writes labels.csv (an unlabelled node's label empty) and,
// when the classes have names, classes.csv.
func writeLabels(dir string, g *graph.Graph, ids []string) error {
	err := writeTable(dir, "labels.csv", []string{"node", "label"}, func(emit func(...string) error) error {
		for i, y := range g.Labels {
			label := ""
			switch {
			case y >= 0 && g.ClassNames != nil:
				label = g.ClassNames[y]
			case y >= 0:
				label = strconv.Itoa(y)
			}
			if err := emit(ids[i], label); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || g.ClassNames == nil {
		return err
	}
	return writeTable(dir, "classes.csv", nil, func(emit func(...string) error) error {
		for _, name := range g.ClassNames {
			if err := emit(name); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeEdges writes edges.csv, each undirected edge once.
func writeEdges(dir string, a *tensor.CSR, ids []string) error {
	return writeTable(dir, "edges.csv", []string{"src", "dst"}, func(emit func(...string) error) error {
		for i := range a.Rows {
			for _, j := range a.Ind[a.Ptr[i]:a.Ptr[i+1]] {
				if i < j {
					if err := emit(ids[i], ids[j]); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// writeFeatures writes sparse features as sparse_features.csv triples and
// dense ones as features.csv rows.
func writeFeatures(dir string, g *graph.Graph, ids []string) error {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch x := g.Features.(type) {
	case *tensor.CSR:
		return writeTable(dir, "sparse_features.csv", []string{"node", "feature", "value"}, func(emit func(...string) error) error {
			for i := range x.Rows {
				for k := x.Ptr[i]; k < x.Ptr[i+1]; k++ {
					if err := emit(ids[i], strconv.Itoa(x.Ind[k]), num(x.Val[k])); err != nil {
						return err
					}
				}
			}
			return nil
		})
	case *tensor.Dense:
		_, cols := x.Dims()
		header := make([]string, cols+1)
		header[0] = "node"
		for j := range cols {
			header[j+1] = "x" + strconv.Itoa(j+1)
		}
		return writeTable(dir, "features.csv", header, func(emit func(...string) error) error {
			rec := make([]string, cols+1)
			for i := range g.N {
				rec[0] = ids[i]
				for j, v := range x.Row(i) {
					rec[j+1] = num(v)
				}
				if err := emit(rec...); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return fmt.Errorf("features of type %T", g.Features)
}

// writeSplit writes split.csv, one node and its set per line.
func writeSplit(dir string, split graph.Split, ids []string) error {
	return writeTable(dir, "split.csv", []string{"node", "set"}, func(emit func(...string) error) error {
		for _, set := range []struct {
			name  string
			nodes []int
		}{{"train", split.Train}, {"val", split.Val}, {"test", split.Test}} {
			for _, i := range set.nodes {
				if err := emit(ids[i], set.name); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// writeTable writes the file name in dir: the header row when not nil,
// then the rows body emits.
func writeTable(dir, name string, header []string, body func(emit func(...string) error) error) (err error) {
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	w := csv.NewWriter(bw)
	emit := func(rec ...string) error { return w.Write(rec) }
	if header != nil {
		if err := emit(header...); err != nil {
			return err
		}
	}
	if err := body(emit); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return bw.Flush()
}

// plainField reports whether s reads back as itself from the first column
// of a LoadCSV file: not empty, not a comment, no surrounding white space.
func plainField(s string) bool {
	return s != "" && s[0] != '#' && strings.TrimSpace(s) == s
}
