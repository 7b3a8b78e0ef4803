// Package enum names the values of cuqgnn's integer enumerations from
// tables of names indexed by value, so that the String methods of the
// enumerations share one bounds check and one fallback.
package enum

import (
	"fmt"
	"reflect"
)

// Lookup returns names[v] and true, or "" and false when v is outside
// names.
func Lookup[E ~int](v E, names []string) (string, bool) {
	if v < 0 || int(v) >= len(names) {
		return "", false
	}
	return names[v], true
}

// String returns names[v], or for a v outside names the name of E and the
// number, such as "Pooling(7)", as the stringer tool does.
func String[E ~int](v E, names []string) string {
	if s, ok := Lookup(v, names); ok {
		return s
	}
	return fmt.Sprintf("%s(%d)", reflect.TypeFor[E]().Name(), int(v))
}
