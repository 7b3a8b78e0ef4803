package cuq

// SetPhysicalMemory makes the memory checks see ram bytes of RAM until
// restore is called.
func SetPhysicalMemory(ram int64) (restore func()) {
	old := physicalMemory
	physicalMemory = func() int64 { return ram }
	return func() { physicalMemory = old }
}

// TinyGraph is tinyGraph for the external tests.
var TinyGraph = tinyGraph
