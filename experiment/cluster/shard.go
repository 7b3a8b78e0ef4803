package cluster

import (
	"fmt"
	"strconv"
	"strings"
)

// The environment variables ShardFromEnv reads. The Slurm ones are those
// that sbatch sets in every task of a job array; Kubernetes sets
// JOB_COMPLETION_INDEX in every pod of an Indexed Job but does not tell a
// pod how many completions its Job has, so the Job's pod template must
// set ShardCountVar to its spec.completions.
const (
	SlurmTaskIDVar     = "SLURM_ARRAY_TASK_ID"
	SlurmTaskCountVar  = "SLURM_ARRAY_TASK_COUNT"
	SlurmTaskMinVar    = "SLURM_ARRAY_TASK_MIN"
	SlurmTaskMaxVar    = "SLURM_ARRAY_TASK_MAX"
	SlurmTaskStepVar   = "SLURM_ARRAY_TASK_STEP"
	KubernetesIndexVar = "JOB_COMPLETION_INDEX"
	ShardCountVar      = "CUQ_SHARD_COUNT"
)

// Shard is the shard of a grid that a batch scheduler assigns to a
// process through its environment (see ShardFromEnv).
type Shard struct {
	Index, Count int
	// Source names the scheduler and the variables the shard was read
	// from, e.g. "Slurm job array (SLURM_ARRAY_TASK_ID=4,
	// SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=8)".
	Source string
}

// String returns the shard as Shard's arguments, "i/n".
func (s *Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ShardFromEnv returns the shard that the environment, read with lookup
// (os.LookupEnv), assigns to this process, or nil when it assigns none.
// Variables set to the empty string count as unset.
//
// In a task of a Slurm job array whose indices are the range
// MIN, MIN+STEP, …, MAX, the task with index ID runs shard
// (ID − MIN) / STEP of COUNT (SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT;
// STEP defaults to 1). Without SLURM_ARRAY_TASK_COUNT the count is
// (MAX − MIN) / STEP + 1; with it, MIN and MAX must describe a range of
// COUNT indices, so that an array of scattered indices such as
// --array=1,4,9 is an error instead of shards left out.
//
// In a pod of a Kubernetes Indexed Job, the pod runs shard
// JOB_COMPLETION_INDEX of CUQ_SHARD_COUNT, which the Job's pod template
// must set to the Job's completions.
//
// A partial environment (an index without a count, or a count without an
// index), a value that is not a non-negative integer, a count of 0, an
// index out of range and two schedulers assigning different shards are
// errors naming the variables.
func ShardFromEnv(lookup func(key string) (string, bool)) (*Shard, error) {
	env := func(key string) string {
		v, _ := lookup(key)
		return v
	}
	slurm, err := slurmShard(env)
	if err != nil {
		return nil, fmt.Errorf("cluster: shard from the Slurm job array: %w", err)
	}
	kube, err := kubernetesShard(env)
	if err != nil {
		return nil, fmt.Errorf("cluster: shard from the Kubernetes Indexed Job: %w", err)
	}
	switch {
	case slurm == nil:
		return kube, nil
	case kube == nil:
		return slurm, nil
	case slurm.Index != kube.Index || slurm.Count != kube.Count:
		return nil, fmt.Errorf("cluster: the %s assigns shard %v but the %s assigns shard %v", slurm.Source, slurm, kube.Source, kube)
	}
	return &Shard{Index: slurm.Index, Count: slurm.Count, Source: slurm.Source + " and " + kube.Source}, nil
}

// envInt parses the non-negative integer value of key; set reports
// whether key has a value.
func envInt(env func(string) string, key string) (v int, set bool, err error) {
	s := env(key)
	if s == "" {
		return 0, false, nil
	}
	v, err = strconv.Atoi(s)
	if err != nil {
		return 0, true, fmt.Errorf("%s=%q is not an integer", key, s)
	}
	if v < 0 {
		return 0, true, fmt.Errorf("%s=%d is negative", key, v)
	}
	return v, true, nil
}

// assignments lists the keys that have values as "KEY=value, ...".
func assignments(env func(string) string, keys ...string) string {
	var parts []string
	for _, k := range keys {
		if v := env(k); v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, ", ")
}

// source formats the scheduler's name and the variables read.
func source(scheduler string, env func(string) string, keys ...string) string {
	return scheduler + " (" + assignments(env, keys...) + ")"
}

// slurmShard reads the shard of a Slurm job array task; nil when no
// array variable is set.
func slurmShard(env func(string) string) (*Shard, error) {
	keys := []string{SlurmTaskIDVar, SlurmTaskMinVar, SlurmTaskMaxVar, SlurmTaskStepVar, SlurmTaskCountVar}
	vals := make(map[string]int, len(keys))
	set := make(map[string]bool, len(keys))
	for _, k := range keys {
		v, ok, err := envInt(env, k)
		if err != nil {
			return nil, err
		}
		vals[k], set[k] = v, ok
	}
	switch {
	case !set[SlurmTaskIDVar] && !set[SlurmTaskCountVar] && !set[SlurmTaskMinVar] && !set[SlurmTaskMaxVar] && !set[SlurmTaskStepVar]:
		return nil, nil
	case !set[SlurmTaskIDVar]:
		return nil, fmt.Errorf("%s is not set although %s", SlurmTaskIDVar, assignments(env, keys...))
	case !set[SlurmTaskCountVar] && !(set[SlurmTaskMinVar] && set[SlurmTaskMaxVar]):
		return nil, fmt.Errorf("%s=%d needs %s, or %s and %s, to know the number of shards", SlurmTaskIDVar, vals[SlurmTaskIDVar], SlurmTaskCountVar, SlurmTaskMinVar, SlurmTaskMaxVar)
	}
	id, lo, step := vals[SlurmTaskIDVar], vals[SlurmTaskMinVar], 1
	if set[SlurmTaskStepVar] {
		step = vals[SlurmTaskStepVar]
	}
	src := source("Slurm job array", env, keys...)
	if step == 0 {
		return nil, fmt.Errorf("%s: %s=0", src, SlurmTaskStepVar)
	}
	count := vals[SlurmTaskCountVar]
	if set[SlurmTaskMinVar] && set[SlurmTaskMaxVar] {
		hi := vals[SlurmTaskMaxVar]
		if hi < lo || (hi-lo)%step != 0 || (set[SlurmTaskCountVar] && count != (hi-lo)/step+1) {
			return nil, fmt.Errorf("%s: the array's indices are not a range from %s to %s in steps of %d; shards need a range such as --array=0-7 (to rerun some shards, resubmit the whole array: shards whose runs are recorded end at once)",
				src, SlurmTaskMinVar, SlurmTaskMaxVar, step)
		}
		count = (hi-lo)/step + 1
	}
	if count == 0 {
		return nil, fmt.Errorf("%s: %s=0", src, SlurmTaskCountVar)
	}
	if id < lo || (id-lo)%step != 0 || (id-lo)/step >= count {
		return nil, fmt.Errorf("%s: %s=%d is not one of the %d indices from %d in steps of %d", src, SlurmTaskIDVar, id, count, lo, step)
	}
	return &Shard{Index: (id - lo) / step, Count: count, Source: src}, nil
}

// kubernetesShard reads the shard of a pod of an Indexed Job; nil when
// neither JOB_COMPLETION_INDEX nor CUQ_SHARD_COUNT is set.
func kubernetesShard(env func(string) string) (*Shard, error) {
	index, indexSet, err := envInt(env, KubernetesIndexVar)
	if err != nil {
		return nil, err
	}
	count, countSet, err := envInt(env, ShardCountVar)
	if err != nil {
		return nil, err
	}
	switch {
	case !indexSet && !countSet:
		return nil, nil
	case !countSet:
		return nil, fmt.Errorf("%s=%d is set but %s is not: Kubernetes does not tell a pod its Job's completions, so the pod template must set %s to spec.completions",
			KubernetesIndexVar, index, ShardCountVar, ShardCountVar)
	case !indexSet:
		return nil, fmt.Errorf("%s=%d is set but %s is not: the shard's index comes from a Slurm job array or a Kubernetes Indexed Job",
			ShardCountVar, count, KubernetesIndexVar)
	case count == 0:
		return nil, fmt.Errorf("%s=0", ShardCountVar)
	case index >= count:
		return nil, fmt.Errorf("%s=%d is out of range for %s=%d (indices 0 to %d)", KubernetesIndexVar, index, ShardCountVar, count, count-1)
	}
	return &Shard{Index: index, Count: count, Source: source("Kubernetes Indexed Job", env, KubernetesIndexVar, ShardCountVar)}, nil
}
