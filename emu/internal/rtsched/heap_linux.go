package rtsched

import "runtime/metrics"

// heapObjects is the bytes of heap objects, live and not yet collected:
// what the governor compares with its target.
func heapObjects() uint64 { return readUint("/memory/classes/heap/objects:bytes") }

// heapLive is the bytes the last collection found alive.
func heapLive() uint64 { return readUint("/gc/heap/live:bytes") }

func readUint(name string) uint64 {
	s := [1]metrics.Sample{{Name: name}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
