package explore

import (
	"fmt"
	"math"

	"github.com/cuqgnn/cuqgnn/cuq/pool"
	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

// alphaStep is the step of the concentration sliders.
const alphaStep = 0.1

// DirichletExplorer shows a Dirichlet distribution Dir(α) over the
// 3-class simplex: three sliders set α, the picture is the density, the
// table its uncertainty measures (package uq). Create it with Dirichlet.
type DirichletExplorer struct {
	intro
	cfg dirichletConfig
}

type dirichletConfig struct {
	Alpha [3]float64 `json:"alpha"` // starting α
	Max   float64    `json:"max"`   // largest α on the sliders
}

func (c dirichletConfig) validate() error {
	if !(c.Max >= 1 && c.Max <= 1000) {
		return fmt.Errorf("dirichlet: slider maximum %v, want 1 to 1000", c.Max)
	}
	for k, a := range c.Alpha {
		if !(a >= alphaStep && a <= c.Max) {
			return fmt.Errorf("dirichlet: α[%d] = %v, want %v to %v", k, a, alphaStep, c.Max)
		}
	}
	return nil
}

// dirichletIntro is what the dirichlet explorer says of itself.
var dirichletIntro = intro{
	kind:  "dirichlet",
	title: "The Dirichlet simplex",
	about: "A second-order prediction Dir(α) is a distribution over class distributions θ. " +
		"Scale all three α up: the density narrows around the same mean θ̄ = α/α0 (ringed), " +
		"TU stays, EU falls. Make them equal and small: the density spreads over the whole simplex, EU is largest. " +
		"TU = H(θ̄), AU = E[H(Θ)], EU = TU − AU, EU_PC = −α0, EU_SO the differential entropy, LC = 1 − max θ̄.",
}

// Dirichlet returns the simplex explorer, starting at α = (6, 3, 1.5) with
// sliders from 0.1 to 20.
func Dirichlet() *DirichletExplorer {
	return &DirichletExplorer{intro: dirichletIntro, cfg: dirichletConfig{Alpha: [3]float64{6, 3, 1.5}, Max: 20}}
}

// Alpha sets the starting α, each rounded to the sliders' step of 0.1.
func (d *DirichletExplorer) Alpha(a0, a1, a2 float64) *DirichletExplorer {
	for k, a := range [3]float64{a0, a1, a2} {
		d.cfg.Alpha[k] = math.Round(a/alphaStep) * alphaStep
	}
	d.err = d.cfg.validate()
	return d
}

// Max sets the largest α the sliders reach (1 to 1000).
func (d *DirichletExplorer) Max(m float64) *DirichletExplorer {
	d.cfg.Max = m
	d.err = d.cfg.validate()
	return d
}

// Controls returns the sliders α0, α1, α2.
func (d *DirichletExplorer) Controls() []Control {
	cs := make([]Control, 3)
	for k := range cs {
		cs[k] = Control{Key: fmt.Sprintf("alpha%d", k), Label: fmt.Sprintf("α%d (class %d)", k, k),
			Min: alphaStep, Max: d.cfg.Max, Step: alphaStep, Value: d.cfg.Alpha[k]}
	}
	return cs
}

// View draws Dir(α) for α = values and tabulates its measures.
func (d *DirichletExplorer) View(values []float64) (*View, error) {
	if err := checkValues(d.Controls(), values); err != nil {
		return nil, fmt.Errorf("explore: dirichlet: %w", err)
	}
	o, err := pool.Dirichlet(values...)
	if err != nil {
		return nil, fmt.Errorf("explore: dirichlet: %w", err)
	}
	ms, err := uq.Dirichlet(values, 3)
	if err != nil {
		return nil, fmt.Errorf("explore: dirichlet: %w", err)
	}
	const s = 300
	img := newPicture(s, s+2*lineHeight)
	title := fmt.Sprintf("Dir(%.1f, %.1f, %.1f)", values[0], values[1], values[2])
	densityPanel(img, 0, 0, s, title, o.LogDensity, o.Mean())
	mean := o.Mean()
	return &View{Picture: img, Tables: []Table{{
		Caption: "Uncertainty of Dir(α), in nats (ln 3 ≈ 1.0986 is the largest TU of three classes)",
		Columns: []string{"", "α0", "θ̄", "TU", "AU", "EU", "EU_PC", "EU_SO", "LC"},
		Rows: []Row{{Label: "Dir(α)", Cells: []Cell{
			num("alpha0", "%.1f", -ms.EUPC[0]),
			text("mean", fmt.Sprintf("(%.3f, %.3f, %.3f)", mean[0], mean[1], mean[2])),
			num("TU", "%.4f", ms.TU[0]),
			num("AU", "%.4f", ms.AU[0]),
			num("EU", "%.4f", ms.EU[0]),
			num("EU_PC", "%.1f", ms.EUPC[0]),
			num("EU_SO", "%.4f", ms.EUSO[0]),
			num("LC", "%.4f", ms.LC[0]),
		}}},
	}}}, nil
}
