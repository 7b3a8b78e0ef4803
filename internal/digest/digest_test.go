package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"
)

// The digest of a number is the SHA-256 of its type's name and its 8
// bytes, as the package comment writes them.
func TestSumWritesTypeAndValue(t *testing.T) {
	var want []byte
	want = binary.LittleEndian.AppendUint64(want, uint64(len("int")))
	want = append(want, "int"...)
	want = binary.LittleEndian.AppendUint64(want, 42)
	if Sum(42) != sha256.Sum256(want) {
		t.Error("Sum(42) is not the SHA-256 of the type name and the value's 8 bytes")
	}
	if Sum(42) == Sum(uint(42)) || Sum(42) == Sum(42.0) {
		t.Error("values of different types digest alike")
	}
}

type withCache struct {
	Value  []float64
	cached []float64 `digest:"-"`
	next   *withCache
}

// Tagged fields do not count, maps digest alike in any order, slices by
// their contents, and a cycle ends.
func TestSumFollowsContents(t *testing.T) {
	a := &withCache{Value: []float64{1, 2}}
	b := &withCache{Value: []float64{1, 2}, cached: []float64{3}}
	if Sum(a) != Sum(b) {
		t.Error("a field tagged digest:\"-\" changes the digest")
	}
	b.Value[1] = 2.5
	if Sum(a) == Sum(b) {
		t.Error("another element of a slice leaves the digest")
	}
	m1, m2 := map[string]int{}, map[string]int{}
	for i, k := range []string{"a", "b", "c", "d", "e"} {
		m1[k] = i
	}
	for i := 4; i >= 0; i-- {
		m2[string(rune('a'+i))] = i
	}
	if Sum(m1) != Sum(m2) {
		t.Error("a map's digest depends on its order of insertion")
	}
	c := &withCache{Value: []float64{1, 2}}
	a.next = a
	if Sum(a) == Sum(c) {
		t.Error("a pointer to itself digests like nil")
	}
}
