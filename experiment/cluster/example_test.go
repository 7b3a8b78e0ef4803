package cluster_test

import (
	"fmt"

	"github.com/cuqgnn/cuqgnn/experiment/cluster"
)

func ExampleShardFromEnv() {
	env := map[string]string{
		"SLURM_ARRAY_TASK_ID":    "4",
		"SLURM_ARRAY_TASK_MIN":   "1",
		"SLURM_ARRAY_TASK_MAX":   "8",
		"SLURM_ARRAY_TASK_COUNT": "8",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	sh, err := cluster.ShardFromEnv(lookup)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sh, "from the", sh.Source)
	// g := experiment.Paper().Shard(sh.Index, sh.Count) runs it.

	delete(env, "SLURM_ARRAY_TASK_COUNT")
	delete(env, "SLURM_ARRAY_TASK_MAX")
	_, err = cluster.ShardFromEnv(lookup)
	fmt.Println(err)
	// Output:
	// 3/8 from the Slurm job array (SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=8, SLURM_ARRAY_TASK_COUNT=8)
	// cluster: shard from the Slurm job array: SLURM_ARRAY_TASK_ID=4 needs SLURM_ARRAY_TASK_COUNT, or SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_MAX, to know the number of shards
}
