// Package cuq builds, trains and evaluates the uncertainty-aware node
// classifiers of "CUQ-GNN: Committee-based Graph Uncertainty Quantification
// using Posterior Networks" (Damke and Hüllermeier) and the baselines it is
// compared with, faithful to the official implementation (docs/guide/reference.md
// lists what it follows and where it deliberately differs).
//
// A model is described by a fluent Builder, from a preset or from parts,
// without a graph; Done builds it on one:
//
//	m, err := cuq.CUQ().
//		Encoder(cuq.MLP(64).Dropout(0.5)).
//		Conv(cuq.GCNConv(64).Layers(2)).
//		Latent(16).
//		PostNet(cuq.Flows(10)).
//		Done(g)
//
// Names follow one rule. A graph convolution's constructor ends in Conv:
// APPNPConv, GCNConv, GATConv (PyTorch Geometric's convention). The other
// parts keep their names: MLP (the encoder), Flows (the PostNet head's
// radial flows), so no function of cuq shares its name with a type of
// package nn. A preset is the model's name and takes no argument: APPNP,
// GKDE, GPN, LOPGPN, CUQ, CUQPPR, CUQGCN, CUQGAT, GCN, MCDropoutGCN,
// DropEdgeGCN, EnsembleGCN, EnsembleAPPNP. The Builder's setters are named
// after what they set (Conv, Encoder, PostNet, ...), and every builder ends
// in Done(g), which builds on the graph g and leaves the builder unchanged,
// so one preset may be done on a graph and on its leave-out-classes graph.
//
// The presets carry the paper's hyperparameters: APPNP, GKDE, GPN,
// LOPGPN, CUQPPR, CUQGCN, CUQGAT. The classical committees sample
// categorical predictions instead: Ensemble (EnsembleGCN, EnsembleAPPNP)
// trains independent first-order members into a Committee, and the builder
// options MCDropout (MCDropoutGCN) and DropEdge (DropEdgeGCN) make one
// first-order model (GCN, APPNP) average sampled passes; their TU, AU and
// EU are the entropy decomposition of the samples (uq.Samples). The energy
// presets Energy, GNNSafe and GEBM wrap a first-order preset or an
// ensemble. Anything that builds a Classifier on a graph is a
// ClassifierBuilder. Prediction.TemperatureScaled is the post-hoc
// calibration baseline; CaGCN and GATS calibrate with a temperature per
// node learnt on the graph. The convolutions are configurations of package
// nn; Conv takes any nn.ConvConfig. A model copies its configuration, so a
// Builder and its parts can be changed and done again.
//
// The PostNet head turns a latent zᵢ ∈ Rᵈ into Dirichlet pseudo-counts
//
//	αᵢ_c = 1 + βᵢ_c,   log βᵢ_c = clamp(log p(zᵢ | c) + log p(c) + ½·d·log 4π, −30, 30),
//
// with p(z | c) a radial normalizing flow per class and p(c) the class
// frequency among training nodes. The pooling decides how a node's
// neighbourhood enters: Behavioral (CUQ-GNN: graph convolutions before the
// head), LogLinear (GPN: α = 1 + Π β_ft with personalised-PageRank weights
// Π) or Linear (LOP-GPN: the mixture Σⱼ Πᵢⱼ Dir(α_ft(j))).
//
// Fit trains with the reference schedule (flow warm-up, Adam with two
// parameter groups, early stopping on validation cross entropy); Predict
// returns per-node predictions with every uncertainty measure of package
// uq (TU, AU, EU, EU_PC, EU_SO, LC). Model.WithPropagation and
// Model.WithPooling make prediction-time variants of a trained model that
// share its parameters: another APPNP propagation (K, t), or GPN's
// parameters pooled as LOP-GPN's or CUQ-PPR's, without training again.
package cuq
