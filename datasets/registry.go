package datasets

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
)

// Spec describes a registered benchmark dataset: where its file lives in the
// data directory, where it is downloaded from, how the download is verified
// and the sizes the loaded graph must have.
type Spec struct {
	// Name is the canonical name, e.g. "CoraML".
	Name string
	// Aliases are further accepted names; matching ignores case, '-', '_'
	// and spaces.
	Aliases []string
	// File is the file (or, for OGBN Arxiv, directory) name in the data
	// directory.
	File string
	// URL is the download source.
	URL string
	// SHA256 is the hex SHA-256 of the downloaded file, "" when unknown.
	SHA256 string
	// GitBlob is the git blob id (SHA-1 of "blob <size>\x00" + content) of
	// the downloaded file, used when only the repository's blob id is known.
	GitBlob string
	// Size is the exact size in bytes of the downloaded file, 0 when
	// unknown (the download is then capped at MaxDownloadBytes).
	Size int64
	// Nodes, Features and Classes are the sizes of the loaded graph.
	Nodes, Features, Classes int
	// Edges is the number of stored entries of the symmetrised adjacency
	// (twice the number of undirected edges), as PyG reports num_edges.
	Edges int
	// edgesVerified marks Edges as measured on the file here, and so
	// enforced by Load; otherwise it is the published figure.
	edgesVerified bool
	// ogb marks the raw OGB directory layout.
	ogb bool
}

// The download sources are commit-pinned, so their bytes cannot change
// under a checksum. For CoraML, CiteSeer, Photos and Computers they are the
// exact files whose sizes and SHA-256 were recorded when the shared copies
// were verified against the published node, edge, feature and class counts
// (a SparseGraph CoraML from sparse_smoothing; the lossless
// savez_compressed re-saves of the graph2gauss CiteSeer and gnn-benchmark
// Amazon files in EdisonLeeeee/GraphData). PyG's own URLs (graph2gauss and
// gnn-benchmark at master) serve other encodings of the same arrays whose
// SHA-256 is not known here. PubMed is the graph2gauss original, verified
// by its git blob id; its size is not known, so its download is capped at
// MaxDownloadBytes. OGB publishes no checksum for arxiv.zip, but the
// archive has not changed since its release (version 1), and independent
// projects that pin it agree on its size (83,058,288 bytes) and SHA-256,
// recorded here; should OGB ever replace it, the download fails with a
// checksum mismatch rather than keeping other content.
var registry = []Spec{
	{
		Name: "CoraML", Aliases: []string{"cora_ml", "cora-ml", "coraml"},
		File:   "cora_ml.npz",
		URL:    "https://raw.githubusercontent.com/abojchevski/sparse_smoothing/9add756987972991b50b4f1d87a00cd4e5e2f621/data/cora_ml.npz",
		SHA256: "46b98cabc9c22c09de0d30140fbf68d004b21d2f05e234feb96ba6e84ec7c86a", Size: 1622498,
		Nodes: 2995, Features: 2879, Classes: 7, Edges: 16316, edgesVerified: true,
	},
	{
		Name: "CiteSeer", Aliases: []string{"citeseer_full", "citeseerfull"},
		File:   "citeseer.npz",
		URL:    "https://raw.githubusercontent.com/EdisonLeeeee/GraphData/9df4e769b53b6bf953c4227cda0f8b653ffbb815/datasets/citeseer_full.npz",
		SHA256: "939e69aae038ecc385496f26ac9a22befe69256929a08c17c47aa0584843a520", Size: 519139,
		Nodes: 4230, Features: 602, Classes: 6, Edges: 10674, edgesVerified: true,
	},
	{
		Name: "PubMed", Aliases: []string{"pubmed_full", "pubmedfull"},
		File:    "pubmed.npz",
		URL:     "https://raw.githubusercontent.com/abojchevski/graph2gauss/240248289d38c22ba28ea8e56b7d6873e291499b/data/pubmed.npz",
		GitBlob: "0735ab74ee845ee26da2db763294d42646058534",
		// PyG CitationFull("PubMed") reports 88648 edges.
		Nodes: 19717, Features: 500, Classes: 3, Edges: 88648,
	},
	{
		Name: "AmazonPhotos", Aliases: []string{"photos", "photo", "amazon_photo", "amazon_electronics_photo"},
		File:   "amazon_electronics_photo.npz",
		URL:    "https://raw.githubusercontent.com/EdisonLeeeee/GraphData/9df4e769b53b6bf953c4227cda0f8b653ffbb815/datasets/amazon_photo.npz",
		SHA256: "f0552bc8bcdb103c25b07cf4619bd9458af435c0728dc8366e86ffb912018c25", Size: 1769253,
		Nodes: 7650, Features: 745, Classes: 8, Edges: 238162, edgesVerified: true,
	},
	{
		Name: "AmazonComputers", Aliases: []string{"computers", "computer", "amazon_cs", "amazon_electronics_computers"},
		File:   "amazon_electronics_computers.npz",
		URL:    "https://raw.githubusercontent.com/EdisonLeeeee/GraphData/9df4e769b53b6bf953c4227cda0f8b653ffbb815/datasets/amazon_cs.npz",
		SHA256: "bffa1720ee30487a6f10f2ad57741d1a401d89a31a6a4c5c6de1ba42a1f2a0e0", Size: 3407870,
		Nodes: 13752, Features: 767, Classes: 10, Edges: 491722, edgesVerified: true,
	},
	{
		Name: "OGBNArxiv", Aliases: []string{"ogbn-arxiv", "ogbn_arxiv", "arxiv"},
		File:   "ogbn_arxiv",
		URL:    "https://snap.stanford.edu/ogb/data/nodeproppred/arxiv.zip",
		SHA256: "49f85c801589ecdcc52cfaca99693aaea7b8af16a9ac3f41dd85a5f3193fe276", Size: 83058288,
		// OGB reports 1,166,243 directed citations; PyG's to_undirected
		// gives 2,315,598 entries.
		Nodes: 169343, Features: 128, Classes: 40, Edges: 2315598, ogb: true,
	},
}

// Names returns the canonical names of the registered datasets.
func Names() []string {
	names := make([]string, len(registry))
	for i, s := range registry {
		names[i] = s.Name
	}
	return names
}

// Info returns the Spec registered under name or one of its aliases;
// matching ignores case, '-', '_' and spaces.
func Info(name string) (Spec, error) {
	key := normName(name)
	for _, s := range registry {
		if normName(s.Name) == key || slices.ContainsFunc(s.Aliases, func(a string) bool { return normName(a) == key }) {
			s.Aliases = slices.Clone(s.Aliases)
			return s, nil
		}
	}
	return Spec{}, fmt.Errorf("datasets: unknown dataset %q (known: %s)", name, strings.Join(Names(), ", "))
}

func normName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// Dir returns the default data directory: $CUQ_DATA when set, otherwise
// "cuqgnn" in the user cache directory (os.UserCacheDir), otherwise in the
// temporary directory.
func Dir() string {
	if d := os.Getenv("CUQ_DATA"); d != "" {
		return d
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "cuqgnn")
	}
	return filepath.Join(os.TempDir(), "cuqgnn")
}

// Option configures Load and Download.
type Option func(*config)

type config struct {
	dir        string
	baseURL    string
	client     *http.Client
	ctx        context.Context
	timeout    time.Duration
	noDownload bool
}

func newConfig(opts []Option) config {
	cfg := config{dir: Dir(), client: defaultClient, ctx: context.Background(), timeout: DefaultTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// defaultClient is http.DefaultClient's transport (proxies from the
// environment) with limits on connecting and waiting for a response; the
// whole transfer is bounded by the Timeout option.
var defaultClient = &http.Client{Transport: func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 30 * time.Second
	t.ResponseHeaderTimeout = time.Minute
	return t
}()}

// FromDir makes Load look for (and download into) dir instead of Dir().
func FromDir(dir string) Option { return func(c *config) { c.dir = dir } }

// BaseURL makes Load download a missing file from base + "/" + the last
// path element of its Spec.URL instead of Spec.URL (a mirror, or a test
// server). The mirror must serve https; sizes and checksums are verified
// as usual.
func BaseURL(base string) Option {
	return func(c *config) { c.baseURL = strings.TrimSuffix(base, "/") }
}

// HTTPClient sets the client used for downloads (default: one with
// connection and response-header timeouts).
func HTTPClient(client *http.Client) Option { return func(c *config) { c.client = client } }

// Context makes ctx cancel a download; the partial file is removed.
func Context(ctx context.Context) Option { return func(c *config) { c.ctx = ctx } }

// Timeout limits a whole download to d (default DefaultTimeout). A
// download also fails when no data arrives for a minute.
func Timeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// NoDownload makes Load fail instead of downloading a missing file.
func NoDownload() Option { return func(c *config) { c.noDownload = true } }

// Load returns the registered dataset name, processed as PyG does (see
// LoadNPZ and LoadOGBArxiv). A file missing from the data directory is
// downloaded as Download describes. The loaded graph's sizes are checked
// against the Spec, so a wrong or damaged file gives an error rather than
// a different graph.
func Load(name string, opts ...Option) (*graph.Graph, error) {
	spec, err := Info(name)
	if err != nil {
		return nil, err
	}
	path, err := Download(spec.Name, opts...)
	if err != nil {
		return nil, err
	}
	var g *graph.Graph
	if spec.ogb {
		g, _, err = LoadOGBArxiv(path)
	} else {
		g, err = LoadNPZ(path, spec.Name)
	}
	if err != nil {
		return nil, err
	}
	if err := spec.check(g); err != nil {
		return nil, fmt.Errorf("datasets: %s: %s: %w", spec.Name, path, err)
	}
	return g, nil
}

// MustLoad is Load that panics on error, for notebooks and examples.
func MustLoad(name string, opts ...Option) *graph.Graph {
	g, err := Load(name, opts...)
	if err != nil {
		panic(err)
	}
	return g
}

// check compares the sizes of g with the Spec.
func (s Spec) check(g *graph.Graph) error {
	if g.N != s.Nodes || g.NumFeatures() != s.Features || g.NumClasses != s.Classes {
		return fmt.Errorf("graph has %d nodes, %d features, %d classes; want %d, %d, %d",
			g.N, g.NumFeatures(), g.NumClasses, s.Nodes, s.Features, s.Classes)
	}
	if s.edgesVerified && g.NumEdges() != s.Edges {
		return fmt.Errorf("graph has %d directed edges, want %d", g.NumEdges(), s.Edges)
	}
	return nil
}
