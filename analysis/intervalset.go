package analysis

import "sort"

// intervalSet is the set of byte ranges of one stream received so far, as
// sorted, disjoint, non-adjacent half-open intervals. Goodput counts only
// bytes that are new to this set: metrics.md §3 shows that "bytes beyond
// the highest offset seen" undercounts when retransmissions fill holes.
//
// In-order delivery extends the last interval in O(1); a range that fills a
// hole costs a binary search and a merge.
type intervalSet struct {
	iv []span
}

type span struct{ lo, hi int64 } // [lo, hi)

// add inserts [lo, hi) and returns how many of its bytes were not covered.
func (s *intervalSet) add(lo, hi int64) int64 {
	if hi <= lo {
		return 0
	}
	n := len(s.iv)
	if n == 0 || lo > s.iv[n-1].hi {
		s.iv = append(s.iv, span{lo, hi})
		return hi - lo
	}
	if last := &s.iv[n-1]; lo >= last.lo {
		// Overlaps or touches the last interval: the common case.
		if hi <= last.hi {
			return 0
		}
		added := hi - last.hi
		last.hi = hi
		return added
	}
	// First interval whose end reaches lo (touching counts, to merge).
	i := sort.Search(n, func(k int) bool { return s.iv[k].hi >= lo })
	// Intervals i..j-1 overlap or touch [lo, hi).
	j := i
	covered := int64(0)
	newLo, newHi := lo, hi
	for j < n && s.iv[j].lo <= hi {
		a, b := max(s.iv[j].lo, lo), min(s.iv[j].hi, hi)
		if b > a {
			covered += b - a
		}
		newLo = min(newLo, s.iv[j].lo)
		newHi = max(newHi, s.iv[j].hi)
		j++
	}
	merged := span{newLo, newHi}
	switch {
	case j == i: // no overlap: insert
		s.iv = append(s.iv, span{})
		copy(s.iv[i+1:], s.iv[i:])
		s.iv[i] = merged
	default:
		s.iv[i] = merged
		s.iv = append(s.iv[:i+1], s.iv[j:]...)
	}
	return (hi - lo) - covered
}

// total returns the number of bytes covered.
func (s *intervalSet) total() int64 {
	var t int64
	for _, v := range s.iv {
		t += v.hi - v.lo
	}
	return t
}
