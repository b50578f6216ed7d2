package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// runSeed derives a run's seed from the base seed, the point's configuration
// (its parameters that differ from the base, so adding a value to an axis
// leaves the other points' seeds alone) and the repeat. It is deterministic,
// so every shard and every resumed attempt gives a run the same seed. Seeds
// stay below 2^53 so that any JSON reader keeps them exact, and are never 0
// (which asks a run to pick its own).
func runSeed(base uint64, params map[string]string, repeat int) uint64 {
	h := sha256.New()
	fmt.Fprintf(h, "emu sweep seed v1\x00%d\x00%s\x00%d", base, canonical(params), repeat)
	s := binary.BigEndian.Uint64(h.Sum(nil)[:8]) & (1<<53 - 1)
	if s == 0 {
		s = 1
	}
	return s
}
