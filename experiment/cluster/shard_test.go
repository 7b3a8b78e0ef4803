package cluster

import (
	"strings"
	"testing"
)

// lookupIn returns a lookup function over the map env, as os.LookupEnv
// over an environment.
func lookupIn(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

func TestShardFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string // "i/n", "" for none, or "error: <substring>"
	}{
		{nil, ""},
		{map[string]string{"HOME": "/root", "SLURM_JOB_ID": "77"}, ""},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "", "JOB_COMPLETION_INDEX": ""}, ""},
		// Slurm arrays: --array=0-7, 1-8, 0-12:4, 2-6 without COUNT, COUNT without MIN/MAX.
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "8"}, "3/8"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "8"}, "0/8"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "8"}, "7/8"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "12", "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, "2/4"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_MAX": "6"}, "3/5"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, "2/4"},
		// Slurm: partial, malformed or out of range.
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, "error: SLURM_ARRAY_TASK_ID=3 needs SLURM_ARRAY_TASK_COUNT, or SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_MAX"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MAX": "7"}, "error: SLURM_ARRAY_TASK_ID=3 needs SLURM_ARRAY_TASK_COUNT"},
		{map[string]string{"SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0"}, "error: SLURM_ARRAY_TASK_ID is not set although SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_COUNT=4"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "-1", "SLURM_ARRAY_TASK_COUNT": "4"}, "error: SLURM_ARRAY_TASK_ID=-1 is negative"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "3a", "SLURM_ARRAY_TASK_COUNT": "4"}, `error: SLURM_ARRAY_TASK_ID="3a" is not an integer`},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "0"}, "error: Slurm job array (SLURM_ARRAY_TASK_ID=0, SLURM_ARRAY_TASK_COUNT=0): SLURM_ARRAY_TASK_COUNT=0"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, "error: SLURM_ARRAY_TASK_ID=4 is not one of the 4 indices from 0 in steps of 1"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "9", "SLURM_ARRAY_TASK_COUNT": "3"}, "error: the array's indices are not a range from SLURM_ARRAY_TASK_MIN to SLURM_ARRAY_TASK_MAX in steps of 1"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "12", "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, "error: SLURM_ARRAY_TASK_ID=5 is not one of the 4 indices from 0 in steps of 4"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_STEP": "0"}, "error: SLURM_ARRAY_TASK_STEP=0"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "8", "SLURM_ARRAY_TASK_MAX": "2"}, "error: the array's indices are not a range"},
		// Kubernetes Indexed Jobs.
		{map[string]string{"JOB_COMPLETION_INDEX": "2", "CUQ_SHARD_COUNT": "3"}, "2/3"},
		{map[string]string{"JOB_COMPLETION_INDEX": "2"}, "error: JOB_COMPLETION_INDEX=2 is set but CUQ_SHARD_COUNT is not: Kubernetes does not tell a pod its Job's completions, so the pod template must set CUQ_SHARD_COUNT to spec.completions"},
		{map[string]string{"CUQ_SHARD_COUNT": "3"}, "error: CUQ_SHARD_COUNT=3 is set but JOB_COMPLETION_INDEX is not"},
		{map[string]string{"JOB_COMPLETION_INDEX": "0", "CUQ_SHARD_COUNT": "0"}, "error: CUQ_SHARD_COUNT=0"},
		{map[string]string{"JOB_COMPLETION_INDEX": "3", "CUQ_SHARD_COUNT": "3"}, "error: JOB_COMPLETION_INDEX=3 is out of range for CUQ_SHARD_COUNT=3 (indices 0 to 2)"},
		{map[string]string{"JOB_COMPLETION_INDEX": "-2", "CUQ_SHARD_COUNT": "3"}, "error: JOB_COMPLETION_INDEX=-2 is negative"},
		{map[string]string{"JOB_COMPLETION_INDEX": "1", "CUQ_SHARD_COUNT": "three"}, `error: CUQ_SHARD_COUNT="three" is not an integer`},
		// Both schedulers: they must agree.
		{map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3", "JOB_COMPLETION_INDEX": "1", "CUQ_SHARD_COUNT": "3"}, "1/3"},
		{map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3", "JOB_COMPLETION_INDEX": "2", "CUQ_SHARD_COUNT": "3"},
			"error: the Slurm job array (SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_COUNT=3) assigns shard 1/3 but the Kubernetes Indexed Job (JOB_COMPLETION_INDEX=2, CUQ_SHARD_COUNT=3) assigns shard 2/3"},
	} {
		s, err := ShardFromEnv(lookupIn(c.env))
		got := ""
		switch {
		case err != nil:
			got = "error: " + err.Error()
		case s != nil:
			got = s.String()
		}
		want, isErr := strings.CutPrefix(c.want, "error: ")
		if isErr && (err == nil || !strings.Contains(err.Error(), want)) || !isErr && got != c.want {
			t.Errorf("ShardFromEnv(%v) = %q, want %q", c.env, got, c.want)
		}
		if isErr && s != nil {
			t.Errorf("ShardFromEnv(%v) returned a shard with its error", c.env)
		}
	}
}

// The source names the scheduler and every variable read, for the notice
// that tells a user where the shard came from.
func TestShardFromEnvSource(t *testing.T) {
	s, err := ShardFromEnv(lookupIn(map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "8", "SLURM_ARRAY_JOB_ID": "12"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Slurm job array (SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=8, SLURM_ARRAY_TASK_COUNT=8)"; s.Source != want || s.Index != 3 || s.Count != 8 {
		t.Errorf("shard %v from %q, want 3/8 from %q", s, s.Source, want)
	}
	s, err = ShardFromEnv(lookupIn(map[string]string{"JOB_COMPLETION_INDEX": "0", "CUQ_SHARD_COUNT": "5"}))
	if err != nil || s.Source != "Kubernetes Indexed Job (JOB_COMPLETION_INDEX=0, CUQ_SHARD_COUNT=5)" {
		t.Errorf("shard %v from %q, %v", s, s.Source, err)
	}
}
