package analysis

import "sort"

// Reordering measures receiver-side reordering of a sequence-numbered
// stream as RFC 4737 defines it (metrics.md §4): an arrival whose number is
// below NextExp (one more than the highest number seen) is reordered. For
// each reordered arrival it records the extent (how many arrivals late it
// is, counted from the earliest arrival with a higher number), the
// late-time offset, and the sequence distance (highest seen minus its
// number; QUIC's packet threshold declares a packet lost at distance ≥ 3).
//
// Feed it QUIC 1-RTT packet numbers in arrival order. quic-go skips packet
// numbers on purpose; gaps are not reordering and cost nothing here.
// The zero value is ready to use; not safe for concurrent use.
type Reordering struct {
	arrivals  int64
	nextExp   int64
	started   bool
	reordered int64

	// Arrivals that raised the highest number seen, in arrival order (their
	// numbers increase): the earliest arrival with a number above s is the
	// first of these whose number exceeds s.
	maxima []maxArrival

	distance  map[int64]int64
	extent    map[int64]int64
	sumExtent int64
	maxExtent int64
	maxLateMs float64
}

type maxArrival struct {
	index int64
	seq   int64
	tMs   float64
}

// Add records the arrival of sequence number seq at time tMs (ms).
func (r *Reordering) Add(seq int64, tMs float64) {
	i := r.arrivals
	r.arrivals++
	if !r.started || seq >= r.nextExp {
		r.started = true
		r.nextExp = seq + 1
		r.maxima = append(r.maxima, maxArrival{index: i, seq: seq, tMs: tMs})
		return
	}
	r.reordered++
	highest := r.nextExp - 1
	if r.distance == nil {
		r.distance = make(map[int64]int64)
		r.extent = make(map[int64]int64)
	}
	r.distance[highest-seq]++
	k := sort.Search(len(r.maxima), func(k int) bool { return r.maxima[k].seq > seq })
	j := r.maxima[k] // exists: the highest seen is above seq
	e := i - j.index
	r.extent[e]++
	r.sumExtent += e
	r.maxExtent = max(r.maxExtent, e)
	r.maxLateMs = max(r.maxLateMs, tMs-j.tMs)
}

// ReorderStats is the summary of a Reordering.
type ReorderStats struct {
	Received    int64   `json:"received_packets"`
	Reordered   int64   `json:"reordered_packets"`
	Ratio       float64 `json:"reordered_ratio"`
	MeanExtent  float64 `json:"mean_extent"`
	MaxExtent   int64   `json:"max_extent"`
	MaxLateMs   float64 `json:"max_late_ms"`
	DistanceGE3 int64   `json:"distance_ge_3"` // reordered far enough to risk a spurious loss
	// Distance and Extent are histograms: value → number of reordered
	// packets, sorted by value.
	Distance []Bucket `json:"sequence_distance"`
	Extent   []Bucket `json:"extent"`
}

// Bucket is one bar of a histogram of whole numbers.
type Bucket struct {
	Value int64 `json:"value"`
	Count int64 `json:"count"`
}

// Stats returns the metrics so far.
func (r *Reordering) Stats() ReorderStats {
	st := ReorderStats{
		Received:  r.arrivals,
		Reordered: r.reordered,
		MaxExtent: r.maxExtent,
		MaxLateMs: r.maxLateMs,
		Distance:  histogram(r.distance),
		Extent:    histogram(r.extent),
	}
	if r.arrivals > 0 {
		st.Ratio = float64(r.reordered) / float64(r.arrivals)
	}
	if r.reordered > 0 {
		st.MeanExtent = float64(r.sumExtent) / float64(r.reordered)
	}
	for d, n := range r.distance {
		if d >= 3 {
			st.DistanceGE3 += n
		}
	}
	return st
}

func histogram(m map[int64]int64) []Bucket {
	out := make([]Bucket, 0, len(m))
	for v, n := range m {
		out = append(out, Bucket{Value: v, Count: n})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Value < out[b].Value })
	return out
}
