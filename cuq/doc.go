// Package cuq builds, trains and evaluates the uncertainty-aware node
// classifiers of "CUQ-GNN: Committee-based Graph Uncertainty Quantification
// using Posterior Networks" (Damke and Hüllermeier) and the baselines it is
// compared with, faithful to the official implementation (docs/guide/reference.md
// lists what it follows and where it deliberately differs).
//
// A model is assembled with a fluent Builder, from a preset or from parts:
//
//	m, err := cuq.CUQ(g).
//		Encoder(cuq.MLP(64).Dropout(0.5)).
//		Conv(cuq.GCNConv(64).Layers(2)).
//		Latent(16).
//		PostNet(cuq.Flows(10)).
//		Build()
//
// The presets carry the paper's hyperparameters: APPNP, GKDE, GPN,
// LOPGPN, CUQPPR, CUQGCN, CUQGAT. The classical committees sample
// categorical predictions instead: Ensemble (EnsembleGCN, EnsembleAPPNP)
// trains independent first-order members into a Committee, and the builder
// options MCDropout (MCDropoutGCN) and DropEdge (DropEdgeGCN) make one
// first-order model (GCN, APPNP) average sampled passes; their
// TU, AU and EU are the entropy decomposition of the samples (uq.Samples).
// Prediction.TemperatureScaled is the post-hoc calibration baseline; CaGCN
// and GATS calibrate with a temperature per node learnt on the graph. The
// convolutions APPNP, GCN and GAT are configurations of package nn; Conv
// takes any nn.ConvConfig. A built model copies its configuration, so a
// Builder and its parts can be changed and built again.
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
// uq (TU, AU, EU, EU_PC, EU_SO, LC).
package cuq
