package pdcp

import (
	"math/rand/v2"
	"testing"
)

// TestBitring checks next and clearRange against a []bool, with ranges that
// start anywhere in a word and cross the ring's wrap.
func TestBitring(t *testing.T) {
	const w = 256
	b := newBitring(w)
	var ref [w]bool
	rng := rand.New(rand.NewPCG(1, 2))
	base := int64(1000) // COUNTs [base, base+w) are the window
	for i := range 20000 {
		c := base + rng.Int64N(w)
		switch rng.IntN(4) {
		case 0, 1:
			b.set(c)
			ref[c%w] = true
		case 2:
			to := c + rng.Int64N(base+w-c+1)
			b.clearRange(c, to)
			for x := c; x < to; x++ {
				ref[x%w] = false
			}
		case 3:
			base += rng.Int64N(100) // slide the window
			continue
		}
		from := base + rng.Int64N(w)
		to := from + rng.Int64N(base+w-from+1)
		want := to
		for x := from; x < to; x++ {
			if ref[x%w] {
				want = x
				break
			}
		}
		if got := b.next(from, to); got != want {
			t.Fatalf("op %d: next(%d, %d) = %d, want %d", i, from, to, got, want)
		}
		if got := b.get(c); got != ref[c%w] {
			t.Fatalf("op %d: get(%d) = %v", i, c, got)
		}
	}
}
