package explore_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/kernelext/explore"
)

// An explorer computes its view for any setting of its controls, here the
// Dirichlet explorer at α = (2, 2, 9); the browser calls the same View each
// time a slider moves.
func ExampleDirichlet() {
	e := explore.Dirichlet().Alpha(2, 2, 9)
	for _, c := range e.Controls() {
		fmt.Printf("%s from %v to %v, starting at %v\n", c.Label, c.Min, c.Max, c.Value)
	}
	v, err := e.View(explore.Start(e))
	if err != nil {
		fmt.Println(err)
		return
	}
	cells := v.Cells()
	for _, k := range []string{"TU", "AU", "EU", "EU_PC"} {
		fmt.Printf("%s %s\n", k, cells[k].Text)
	}
	// Output:
	// α0 (class 0) from 0.1 to 20, starting at 2
	// α1 (class 1) from 0.1 to 20, starting at 2
	// α2 (class 2) from 0.1 to 20, starting at 9
	// TU 0.8305
	// AU 0.7601
	// EU 0.0704
	// EU_PC -13.0
}

// The pooling explorer starts at the conflict of the teaching notebook:
// GPN's log-linear pool reads it as aleatoric (A3 holds), LOP-GPN's
// mixture as epistemic.
func ExamplePooling() {
	e := explore.Pooling()
	v, err := e.View(explore.Start(e))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := v.Cells()
	for _, p := range []string{"loglinear", "linear", "behavioural"} {
		fmt.Printf("%-11s AU %s EU %s  A2 %s, A3 %s\n", p, c[p+".AU"].Text, c[p+".EU"].Text, c[p+".A2"].Text, c[p+".A3"].Text)
	}
	// Output:
	// loglinear   AU 0.8613 EU 0.0782  A2 holds, A3 holds
	// linear      AU 0.6049 EU 0.4404  A2 breaks, A3 breaks
	// behavioural AU 0.8709 EU 0.2160  A2 holds, A3 holds
}

// The training explorer trains CUQ-PPR and GPN on a stochastic block
// model and compares their uncertainty with the ground truth; here on a
// 150-node graph. In the browser, Train reports every epoch so the page can
// draw the curves as they grow.
func ExampleTraining() {
	e := explore.Training().Nodes(150)
	for _, c := range e.Controls() {
		fmt.Printf("%s from %v to %v, starting at %v\n", c.Label, c.Min, c.Max, c.Value)
	}
	v, err := e.View(explore.Start(e))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := v.Cells()
	for _, m := range []string{"cuqppr", "gpn"} {
		fmt.Printf("%-6s %s epochs, accuracy %s, ρ(AU) %s, ρ(EU) %s\n", m, c[m+".epochs"].Text, c[m+".acc"].Text, c[m+".rhoAU"].Text, c[m+".rhoEU"].Text)
	}
	fmt.Println("Bayes-optimal accuracy", c["bayes.acc"].Text)
	// Output:
	// homophily h from 0.2 to 1, starting at 0.9
	// feature signal s from 0 to 3, starting at 1
	// graph seed from 1 to 20, starting at 1
	// cuqppr 95 epochs, accuracy 0.879, ρ(AU) 0.325, ρ(EU) 0.201
	// gpn    62 epochs, accuracy 0.889, ρ(AU) 0.318, ρ(EU) 0.093
	// Bayes-optimal accuracy 0.990
}
