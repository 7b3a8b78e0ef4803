// Package reftables reads and writes the result tables of the paper in the
// file formats of its reference implementation, so that cuqgnn's tables can
// be compared with the reference's cell by cell:
//
//   - id_ood.csv: per dataset and model, the test accuracy and, per OOD
//     setting, the ID and OOD accuracies, the OOD-detection AUROCs and the
//     relative uncertainty changes, each with its standard error and a
//     best-of-dataset flag (WriteIDOOD, ReadIDOOD), and the same numbers as
//     Markdown for terminals and notebooks (WriteIDOODMarkdown);
//   - acc_rej_<type>_<dataset>.csv: the mean, variance and standard error of
//     the accuracy-rejection curves of each model (WriteAccRej).
//
// The column names, model keys and number formats are the reference's
// (Clojure's printing of doubles, Java's rounding), and they live here
// only; the metrics themselves are computed by package eval.
package reftables
