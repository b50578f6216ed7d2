package analysis

import (
	"math/rand/v2"
	"testing"
)

func TestIntervalSetMatchesBitmap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		var s intervalSet
		bits := make([]bool, 400)
		for op := 0; op < 40; op++ {
			lo := int64(rng.IntN(380))
			hi := lo + int64(rng.IntN(21))
			var want int64
			for b := lo; b < hi; b++ {
				if !bits[b] {
					bits[b] = true
					want++
				}
			}
			if got := s.add(lo, hi); got != want {
				t.Fatalf("trial %d: add(%d,%d) = %d new bytes, want %d (set %v)", trial, lo, hi, got, want, s.iv)
			}
			for i := 1; i < len(s.iv); i++ {
				if s.iv[i-1].hi >= s.iv[i].lo || s.iv[i].lo >= s.iv[i].hi {
					t.Fatalf("intervals not sorted, disjoint and non-adjacent: %v", s.iv)
				}
			}
		}
		var total int64
		for _, b := range bits {
			if b {
				total++
			}
		}
		if s.total() != total {
			t.Fatalf("total %d, want %d", s.total(), total)
		}
	}
}
