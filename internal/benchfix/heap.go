package benchfix

import "runtime"

// LiveHeap returns HeapAlloc after two collections: the heap still reachable.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
