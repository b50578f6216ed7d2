package analysis

import (
	"math/rand/v2"
	"testing"
)

func TestReorderingWorkedExample(t *testing.T) {
	// metrics.md §4: arrivals 1, 2, 5, 3, 4, 6 → 3 and 4 reordered (2/6),
	// extents 1 and 2, sequence distances 2 and 1.
	var r Reordering
	for i, s := range []int64{1, 2, 5, 3, 4, 6} {
		r.Add(s, float64(10*i))
	}
	st := r.Stats()
	if st.Received != 6 || st.Reordered != 2 || st.Ratio != 2.0/6 {
		t.Errorf("reordered %d of %d (%.3f), want 2 of 6", st.Reordered, st.Received, st.Ratio)
	}
	wantExt := []Bucket{{1, 1}, {2, 1}}
	wantDist := []Bucket{{1, 1}, {2, 1}}
	if !equalBuckets(st.Extent, wantExt) || !equalBuckets(st.Distance, wantDist) {
		t.Errorf("extent %v distance %v, want %v and %v", st.Extent, st.Distance, wantExt, wantDist)
	}
	if st.MaxExtent != 2 || st.MeanExtent != 1.5 || st.DistanceGE3 != 0 {
		t.Errorf("max extent %d mean %.2f d≥3 %d", st.MaxExtent, st.MeanExtent, st.DistanceGE3)
	}
	// 5 arrived at t=20; 4 at t=40 is 20 ms late.
	if st.MaxLateMs != 20 {
		t.Errorf("max late %v ms, want 20", st.MaxLateMs)
	}
}

// TestReorderingMatchesDefinition compares with a direct quadratic reading
// of RFC 4737 on random arrival orders, with gaps (skipped numbers).
func TestReorderingMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(60)
		seq := make([]int64, n)
		next := int64(rng.IntN(3))
		for i := range seq {
			seq[i] = next
			next += 1 + int64(rng.IntN(2))
		}
		for k := rng.IntN(n); k > 0; k-- { // local swaps: realistic reordering
			i := rng.IntN(n)
			j := min(n-1, i+rng.IntN(6))
			seq[i], seq[j] = seq[j], seq[i]
		}
		var r Reordering
		for i, s := range seq {
			r.Add(s, float64(i))
		}
		st := r.Stats()
		var reordered, ge3, sumExt int64
		for i, s := range seq {
			highest, firstAbove := int64(-1), -1
			for j := 0; j < i; j++ {
				highest = max(highest, seq[j])
				if firstAbove < 0 && seq[j] > s {
					firstAbove = j
				}
			}
			if i > 0 && s < highest {
				reordered++
				sumExt += int64(i - firstAbove)
				if highest-s >= 3 {
					ge3++
				}
			}
		}
		if st.Reordered != reordered || st.DistanceGE3 != ge3 || int64(st.MeanExtent*float64(st.Reordered)+0.5) != sumExt {
			t.Fatalf("%v: got %+v, want reordered %d, d≥3 %d, Σextent %d", seq, st, reordered, ge3, sumExt)
		}
	}
}

func equalBuckets(a, b []Bucket) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
