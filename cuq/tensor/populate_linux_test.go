package tensor

import "testing"

// populate maps pages without changing what they hold: a large matrix
// from New is zero, and populating storage already written keeps its
// numbers, also when the slice does not start or end on a page boundary.
func TestPopulateKeepsContents(t *testing.T) {
	m := New(populateMin/100+3, 100)
	for i, v := range m.Data {
		if v != 0 {
			t.Fatalf("New: element %d is %v, want 0", i, v)
		}
	}
	for i := range m.Data {
		m.Data[i] = float64(i)
	}
	populate(m.Data[3 : len(m.Data)-5])
	for i, v := range m.Data {
		if v != float64(i) {
			t.Fatalf("after populate: element %d is %v, want %d", i, v, i)
		}
	}
}
