// Command broken does not compile: the wasmbundle tests check that the
// compiler's message reaches the caller.
package main

func main() {
	var n int = "not a number"
	_ = n
}
