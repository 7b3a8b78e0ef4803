package nbenv_test

import (
	"fmt"
	"os"

	"github.com/cuqgnn/cuqgnn/notebooks/nbenv"
)

// A notebook cell trains once per kernel session; later cells get the
// stored result.
func ExampleMemo() {
	tmp, _ := os.MkdirTemp("", "kernel")
	defer os.RemoveAll(tmp)
	os.Setenv(nbenv.EnvGoNBTmp, tmp) // GoNB sets it for every cell
	defer os.Unsetenv(nbenv.EnvGoNBTmp)
	train := func() ([]float64, error) {
		fmt.Println("training")
		return []float64{0.9, 0.1}, nil
	}
	for range 2 {
		p, err := nbenv.Memo("model", train)
		fmt.Println(p, err)
	}
	// Output:
	// training
	// [0.9 0.1] <nil>
	// [0.9 0.1] <nil>
}
