// Command mksample writes the small sample graph of the notebooks,
// notebooks/data/smallgraph, in the CSV layout of datasets.LoadCSV:
//
//	go run ./datasets/internal/mksample -out notebooks/data/smallgraph
//
// The graph is a contextual stochastic block model (datasets.CSBM) of 300
// nodes in four topics with homophily 0.8, average degree 4 and sparse
// bag-of-words features (64 words, 8 draws per node, signal 0.7), seed 7.
// Its nodes are shuffled and named doc001 ... doc300 in the shuffled
// order, every 20th node of which is left unlabelled; the split is
// stratified, 10% of each class for training and 10% for validation, the
// rest for testing. The output is deterministic: a test checks that the
// committed files equal what this command writes.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/tensor"
	"github.com/cuqgnn/cuqgnn/datasets"
)

func main() {
	out := flag.String("out", "notebooks/data/smallgraph", "directory to write")
	flag.Parse()
	l, err := sample()
	if err != nil {
		log.Fatal(err)
	}
	if err := datasets.WriteCSV(*out, l); err != nil {
		log.Fatal(err)
	}
}

// topics are the class names, in class order.
var topics = []string{"astronomy", "biology", "chemistry", "linguistics"}

// sample generates the sample graph with its node names and split.
func sample() (*datasets.Loaded, error) {
	g, err := datasets.CSBM(300, len(topics)).Homophily(0.8).AvgDegree(4).
		BagOfWords(8).Features(64).FeatureSignal(0.7).Seed(7).Name("smallgraph").Done()
	if err != nil {
		return nil, err
	}
	g, err = shuffle(g, rand.New(rand.NewPCG(7, 0x736d616c6c)))
	if err != nil {
		return nil, err
	}
	g.ClassNames = topics
	ids := make([]string, g.N)
	for i := range ids {
		ids[i] = fmt.Sprintf("doc%03d", i+1)
		if i%20 == 19 {
			g.Labels[i] = -1
		}
	}
	s, err := g.Split(graph.Stratified(0.1, 0.1, 0.8))
	if err != nil {
		return nil, err
	}
	return &datasets.Loaded{Graph: g, IDs: ids, Split: &s}, nil
}

// shuffle returns g with its nodes in a random order: node k of the result
// is node p[k] of g.
func shuffle(g *graph.Graph, r *rand.Rand) (*graph.Graph, error) {
	p := r.Perm(g.N)
	inv := make([]int, g.N)
	for k, i := range p {
		inv[i] = k
	}
	remap := func(m *tensor.CSR, cols func(int) int) (*tensor.CSR, error) {
		var ri, ci []int
		var val []float64
		for k, i := range p {
			for e := m.Ptr[i]; e < m.Ptr[i+1]; e++ {
				ri, ci, val = append(ri, k), append(ci, cols(m.Ind[e])), append(val, m.Val[e])
			}
		}
		return tensor.FromCOO(g.N, m.Cols, ri, ci, val)
	}
	adj, err := remap(g.Adj, func(j int) int { return inv[j] })
	if err != nil {
		return nil, err
	}
	x, ok := g.Features.(*tensor.CSR)
	if !ok {
		return nil, fmt.Errorf("features of type %T, want sparse", g.Features)
	}
	if x, err = remap(x, func(j int) int { return j }); err != nil {
		return nil, err
	}
	labels := make([]int, g.N)
	for k, i := range p {
		labels[k] = g.Labels[i]
	}
	return graph.New(g.Name, adj, x, labels, g.NumClasses, nil)
}
