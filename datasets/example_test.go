package datasets_test

import (
	"fmt"
	"log"
	"time"

	"github.com/cuqgnn/cuqgnn/datasets"
)

func ExampleLoad() {
	// Reads cora_ml.npz from $CUQ_DATA (or the user cache directory),
	// downloading and checksumming it on first use.
	g, err := datasets.Load("CoraML")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.N, g.NumFeatures(), g.NumClasses, g.NumEdges())
}

func ExampleInfo() {
	s, err := datasets.Info("photos")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Name, s.File, s.Nodes, s.Features, s.Classes, s.Edges)
	// Output: AmazonPhotos amazon_electronics_photo.npz 7650 745 8 238162
}

func ExampleCSBM() {
	g, err := datasets.CSBM(600, 3).Homophily(0.9).FeatureSignal(1.5).Features(16).AvgDegree(4).Seed(1).Done()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.N, g.NumClasses, g.NumFeatures(), g.ClassCounts(nil))
	// Output: 600 3 16 [200 200 200]
}

func ExampleLattice() {
	g, err := datasets.Lattice(2, 3).Classes(2).Done()
	if err != nil {
		log.Fatal(err)
	}
	// Corners have two neighbours, the middle of each row three.
	fmt.Println(g.Degrees())
	// Output: [2 3 2 2 3 2]
}

func ExampleDownload() {
	// Fetches OGB's arxiv.zip over https into $CUQ_DATA (or the user cache
	// directory), checks its size and SHA-256, unpacks the files the loader
	// reads and renames the directory into place; a second call finds it.
	dir, err := datasets.Download("ogbn-arxiv", datasets.Timeout(30*time.Minute))
	if err != nil {
		log.Fatal(err)
	}
	g, split, err := datasets.LoadOGBArxiv(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.N, len(split.Train), len(split.Val), len(split.Test))
}

func ExampleCSBMConfig_DoneWithTruth() {
	g, truth, err := datasets.CSBM(300, 3).BernoulliEdges().Homophily(0.9).AvgDegree(5).Seed(1).DoneWithTruth()
	if err != nil {
		log.Fatal(err)
	}
	// p_in = h·d·C/(N−1), p_out = (1−h)·d·C/((N−1)(C−1)) under a uniform prior.
	fmt.Printf("p_in %.5f, p_out %.5f\n", truth.PIn, truth.POut)
	train := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	u, err := truth.Uncertainty(g, train)
	if err != nil {
		log.Fatal(err)
	}
	// 290 unobserved nodes: the total posterior is the mean-field one.
	fmt.Println(len(u.Aleatoric), u.Exact, u.Total[0])
	// Output:
	// p_in 0.04515, p_out 0.00251
	// 300 false 0
}
