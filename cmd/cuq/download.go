package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cuqgnn/cuqgnn/datasets"
)

// httpClient is the client of downloads; nil means the datasets
// package's default. Tests set it to their https server's client.
var httpClient *http.Client

// runDownload runs the download subcommand: it makes sure the named
// datasets are in the data directory, downloading the missing ones.
func runDownload(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("download", "[-data DIR] [-mirror URL] NAME... (or all)", stderr)
	dataDir := fs.String("data", datasets.Dir(), "directory to download into ($CUQ_DATA, else the user cache directory)")
	mirror := fs.String("mirror", "", "https base URL serving the files under their original names (default: the original sources)")
	timeout := fs.Duration("timeout", datasets.DefaultTimeout, "time limit of each download")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("download: name at least one dataset (%s) or all", strings.Join(datasets.Names(), ", "))
	}
	if *timeout <= 0 {
		return fmt.Errorf("download: -timeout %v must be positive", *timeout)
	}
	names, err := datasetNames(fs.Args())
	if err != nil {
		return err
	}
	opts := []datasets.Option{datasets.FromDir(*dataDir), datasets.Context(ctx), datasets.Timeout(*timeout)}
	if *mirror != "" {
		opts = append(opts, datasets.BaseURL(*mirror))
	}
	if httpClient != nil {
		opts = append(opts, datasets.HTTPClient(httpClient))
	}
	var seen []string
	for _, name := range names {
		if slices.Contains(seen, name) {
			continue
		}
		seen = append(seen, name)
		if err := ensureDataset(name, opts, stdout); err != nil {
			return err
		}
	}
	return nil
}

// datasetNames returns the registered names of the datasets the arguments
// name, comma-separated, "all" for every dataset.
func datasetNames(args []string) ([]string, error) {
	var names []string
	for _, arg := range args {
		for _, n := range splitComma(arg) {
			if strings.EqualFold(n, "all") {
				names = append(names, datasets.Names()...)
				continue
			}
			spec, err := datasets.Info(n)
			if err != nil {
				return nil, fmt.Errorf("download: %w", err)
			}
			names = append(names, spec.Name)
		}
	}
	return names, nil
}

// ensureDataset reports the dataset name present, or downloads it and
// reports where, its size and how it was verified.
func ensureDataset(name string, opts []datasets.Option, stdout io.Writer) error {
	spec, _ := datasets.Info(name)
	if path, err := datasets.Download(name, append(opts, datasets.NoDownload())...); err == nil {
		fmt.Fprintf(stdout, "%s: present in %s\n", name, path)
		return nil
	}
	start := time.Now()
	path, err := datasets.Download(name, opts...)
	if err != nil {
		return err
	}
	check := "SHA-256"
	if spec.SHA256 == "" {
		check = "git blob id"
	}
	size := ""
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		size = fmt.Sprintf("%d bytes, ", st.Size())
	}
	fmt.Fprintf(stdout, "%s: downloaded to %s (%s%s verified) in %.1f s\n", name, path, size, check, time.Since(start).Seconds())
	return nil
}
