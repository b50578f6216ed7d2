package rtsched

// heapMinimum is the smallest heap the governor lets grow before a
// collection at GOGC=100, as the runtime's own pacer does (4 MB, scaled by
// the percentage).
const heapMinimum = 4 << 20

// nextTarget is the heap size (bytes of heap objects, live and dead) at
// which the next collection is due after one that left live bytes alive,
// for the GOGC percentage percent; ok is false when percent is negative
// (collection off).
func nextTarget(live uint64, percent int) (target uint64, ok bool) {
	if percent < 0 {
		return 0, false
	}
	p := uint64(percent)
	return max(live+live*p/100, heapMinimum*p/100), true
}
