// Package datasets provides the graphs of the CUQ-GNN experiments: loaders
// for the benchmark files (CitationFull CoraML, CiteSeer and PubMed in
// graph2gauss / SparseGraph .npz form, the gnn-benchmark Amazon Photos and
// Computers, and OGBN Arxiv in its raw OGB CSV layout), a registry that
// finds, downloads, checksums and caches them, and seeded synthetic
// generators (contextual stochastic block models, lattices, Barabási–Albert
// growth, an Arxiv-sized graph) for experiments without data and for
// teaching. WriteNPZ writes any graph in the gnn-benchmark .npz layout, so
// that other programs (the PyTorch baselines) read the very same graph.
//
// LoadPath reads a graph of the user's own: a directory of CSV files
// (LoadCSV, written by WriteCSV), an OGB directory, or an .npz file in the
// gnn-benchmark layout or as exported from PyTorch Geometric or DGL; IsPath
// tells such a path from a registry name.
//
// Every loader processes its files as PyTorch Geometric does for the
// reference implementation, so node, edge, feature and class counts equal
// PyG's, and every loader returns an error naming the file and the problem
// on bad input.
package datasets
