package enum_test

import (
	"testing"

	"github.com/cuqgnn/cuqgnn/internal/enum"
)

type colour int

var colourNames = [...]string{"red", "green"}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		v    colour
		want string
	}{
		{0, "red"},
		{1, "green"},
		{2, "colour(2)"},
		{-1, "colour(-1)"},
	} {
		if got := enum.String(tc.v, colourNames[:]); got != tc.want {
			t.Errorf("String(%d) = %q, want %q", int(tc.v), got, tc.want)
		}
	}
}

func TestLookup(t *testing.T) {
	if s, ok := enum.Lookup(colour(1), colourNames[:]); s != "green" || !ok {
		t.Errorf("Lookup(1) = %q, %v, want green, true", s, ok)
	}
	if s, ok := enum.Lookup(colour(2), colourNames[:]); s != "" || ok {
		t.Errorf("Lookup(2) = %q, %v, want \"\", false", s, ok)
	}
}
