package pool_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/cuq/graph"
	"github.com/cuqgnn/cuqgnn/cuq/pool"
)

// An ambiguous node (features at the centre of the toy head's triangle)
// with two confident neighbours in conflict, one at the mean of class 0,
// one at the mean of class 1.
func ExampleOn() {
	m := pool.Triangle(3)
	g, err := graph.NewBuilder(3).
		Node(-1, 0, 0).Node(0, m[0]...).Node(1, m[1]...).
		Star(0, 1, 2).Done()
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := pool.On(g).Done() // toy head, Π = PPR(0.1, 10) over RWNorm
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pl := range pool.Poolings {
		o, _ := p.Opinion(0, pl)
		ms, _ := o.Measures()
		fmt.Printf("%-18v AU %.2f EU %.2f  %v\n", pl, ms.AU[0], ms.EU[0], o)
	}
	// Output:
	// PostNet alone      AU 0.87 EU 0.23  Dir(1.2, 1.2, 1.2)
	// log-linear (GPN)   AU 0.86 EU 0.08  Dir(5.2, 5.2, 1.1)
	// linear (LOP-GPN)   AU 0.60 EU 0.44  mixture of 3 Dirichlets
	// behavioural (CUQ)  AU 0.87 EU 0.22  Dir(1.4, 1.4, 1.0)
}
