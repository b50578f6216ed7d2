package pdcp

import "math/bits"

// bitring is one bit per COUNT for a window of W consecutive COUNTs; COUNT c
// lives at bit c mod W. W is a power of two and a multiple of 64, so a word
// never straddles the wrap.
type bitring struct {
	words []uint64
	mask  uint64 // W-1
}

func newBitring(w int) bitring {
	return bitring{words: make([]uint64, w/64), mask: uint64(w - 1)}
}

func (b bitring) get(c int64) bool {
	i := uint64(c) & b.mask
	return b.words[i>>6]&(1<<(i&63)) != 0
}

func (b bitring) set(c int64) {
	i := uint64(c) & b.mask
	b.words[i>>6] |= 1 << (i & 63)
}

func (b bitring) clear(c int64) {
	i := uint64(c) & b.mask
	b.words[i>>6] &^= 1 << (i & 63)
}

// next returns the first COUNT in [from, to) whose bit is set, or to.
// to-from must not exceed W.
func (b bitring) next(from, to int64) int64 {
	for c := from; c < to; {
		i := uint64(c) & b.mask
		w := b.words[i>>6] >> (i & 63)
		if w != 0 {
			return min(c+int64(bits.TrailingZeros64(w)), to)
		}
		c += 64 - int64(i&63)
	}
	return to
}

// clearRange clears the bits of COUNTs [from, to); to-from must not exceed W.
func (b bitring) clearRange(from, to int64) {
	for c := from; c < to; {
		i := uint64(c) & b.mask
		lo := i & 63
		n := min(uint64(to-c), 64-lo) // bits left in this word
		var m uint64 = ^uint64(0)
		if n < 64 {
			m = (1<<n - 1) << lo
		}
		b.words[i>>6] &^= m
		c += int64(n)
	}
}
