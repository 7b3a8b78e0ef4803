package datasets

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cuqgnn/cuqgnn/datasets/npy"
	"github.com/cuqgnn/cuqgnn/internal/testenv"
)

// ogbOrder is the order of the OGB files in FuzzLoadOGB's arguments.
var ogbOrder = [6]string{
	"raw/node-label.csv.gz", "raw/node-feat.csv.gz", "raw/edge.csv.gz",
	"split/time/train.csv.gz", "split/time/valid.csv.gz", "split/time/test.csv.gz",
}

// ogbFS gzips the six texts into an in-memory OGB directory.
func ogbFS(texts [6][]byte) fstest.MapFS {
	fsys := fstest.MapFS{}
	for k, rel := range ogbOrder {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		w.Write(texts[k])
		w.Close()
		fsys[rel] = &fstest.MapFile{Data: b.Bytes()}
	}
	return fsys
}

// npzAsOGB writes the first perClass nodes of every class of a shared npz
// file in the OGB CSV layout: raw attribute values as dense rows, the
// induced edges as stored, and the nodes split in turn into train, valid
// and test. It gives the fuzzer real feature values and degrees.
func npzAsOGB(f *testing.F, file string, perClass int) ([6][]byte, bool) {
	var texts [6][]byte
	dir := testenv.DatasetsDir()
	if dir == "" {
		return texts, false
	}
	ar, err := npy.ReadNPZFile(filepath.Join(dir, file))
	if err != nil {
		f.Fatal(err)
	}
	labels, err := ints(ar, "labels")
	if err != nil {
		f.Fatal(err)
	}
	adj, err := readCSR(ar, "adj_")
	if err != nil {
		f.Fatal(err)
	}
	attr, err := readCSR(ar, "attr_")
	if err != nil {
		f.Fatal(err)
	}
	// Relabel the classes present as 0, 1, ... in order of appearance.
	index, class, count := map[int]int{}, map[int]int{}, map[int]int{}
	var keep []int
	for i, y := range labels {
		if count[y] < perClass {
			count[y]++
			index[i] = len(keep)
			keep = append(keep, i)
			if _, ok := class[y]; !ok {
				class[y] = len(class)
			}
		}
	}
	var t [6]strings.Builder
	for k, i := range keep {
		fmt.Fprintln(&t[0], class[labels[i]])
		row := make([]string, attr.Cols)
		for j := range row {
			row[j] = "0"
		}
		for p := attr.Ptr[i]; p < attr.Ptr[i+1]; p++ {
			row[attr.Ind[p]] = strconv.FormatFloat(attr.Val[p], 'g', -1, 64)
		}
		fmt.Fprintln(&t[1], strings.Join(row, ","))
		for p := adj.Ptr[i]; p < adj.Ptr[i+1]; p++ {
			if j, ok := index[adj.Ind[p]]; ok {
				fmt.Fprintf(&t[2], "%d,%d\n", k, j)
			}
		}
		fmt.Fprintln(&t[3+k%3], k)
	}
	for k := range texts {
		texts[k] = []byte(t[k].String())
	}
	return texts, true
}

// arxivHead returns the first lines of a real OGBN Arxiv directory
// (ogbn_arxiv in the shared datasets), restricted to its first n nodes.
func arxivHead(f *testing.F, n int) ([6][]byte, bool) {
	var texts [6][]byte
	dir := testenv.DatasetsDir()
	if dir == "" {
		return texts, false
	}
	root := filepath.Join(dir, "ogbn_arxiv")
	if _, err := os.Stat(root); err != nil {
		return texts, false
	}
	fsys := os.DirFS(root)
	for k, rel := range ogbOrder {
		var b strings.Builder
		lines := 0
		err := eachLine(fsys, rel, root, func(line []byte) error {
			switch {
			case k <= 1 && lines == n:
				return errStop
			case k <= 1:
			default:
				for _, f := range bytes.Split(line, comma) {
					if v, err := strconv.Atoi(string(f)); err != nil || v >= n {
						return nil
					}
				}
			}
			lines++
			b.Write(line)
			b.WriteByte('\n')
			return nil
		})
		if err != nil {
			f.Fatal(err)
		}
		texts[k] = []byte(b.String())
	}
	return texts, true
}

// FuzzLoadOGB feeds the OGB CSV loader with arbitrary contents of its six
// files: it returns a valid graph and split or an error, never panics, and
// allocates in proportion to the text it is given.
func FuzzLoadOGB(f *testing.F) {
	seeds := [][6][]byte{{
		[]byte("0\n1\n0\n2\n1\n"), []byte("0.5,-1,2\n0,0,0\n1e-3,2.5,-0.25\n3,3,3\n-7,0.125,1\n"),
		[]byte("0,1\n1,0\n1,2\n3,4\n"), []byte("1\n0\n"), []byte("2\n"), []byte("3\n"),
	}}
	if s, ok := npzAsOGB(f, "citeseer.npz", 3); ok {
		seeds = append(seeds, s)
	}
	if s, ok := arxivHead(f, 40); ok {
		seeds = append(seeds, s)
	}
	for _, s := range seeds {
		if _, _, err := loadOGB(ogbFS(s), "seed"); err != nil {
			f.Fatalf("seed: %v", err)
		}
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5])
	}
	f.Fuzz(func(t *testing.T, labels, feat, edges, train, valid, test []byte) {
		fsys := ogbFS([6][]byte{labels, feat, edges, train, valid, test})
		size := len(labels) + len(feat) + len(edges) + len(train) + len(valid) + len(test)
		alloc := testenv.AllocatedBy(func() {
			g, split, err := loadOGB(fsys, "fuzz")
			if err != nil {
				return
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("invalid graph: %v", err)
			}
			if err := split.Validate(g.N); err != nil {
				t.Fatalf("invalid split: %v", err)
			}
		})
		// Each value of the text takes at least two bytes and becomes one
		// 8-byte number, a few times over while the graph is built.
		if limit := uint64(64*size + 1<<20); alloc > limit {
			t.Fatalf("%d bytes of text allocated %d bytes (limit %d)", size, alloc, limit)
		}
	})
}
