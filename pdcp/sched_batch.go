package pdcp

import (
	"math"
	"time"
)

// batch is the paper's scheduler: of every N consecutive COUNTs the first
// ones go on link 0 and the rest on link 1, N·a/(a+b) of them on link 0 on
// average (batchCut says how many in each batch when that is not a whole
// number). It depends on the COUNT only, so one instance can serve any
// number of entities.
type batch struct {
	n  uint64
	q0 float64 // PDUs of a batch on link 0, on average: N·a/(a+b)
}

func (s *batch) Pick(count uint64, _ int, _ time.Duration) Links {
	if count%s.n < batchCut(count/s.n, s.q0) {
		return Link0
	}
	return Link1
}

// batchCut is how many PDUs of batch k go on link 0 when q of every batch
// do on average: round((k+1)·q) − round(k·q). A whole q is q in every
// batch (batch 100 at 9:1: 90); a fractional one alternates between the
// two nearest counts so the long-run split is exact (batch 25 at 1:1: 13,
// 12, 13, …; batch 1 at 1:1: one PDU per link in turn) instead of always
// rounding the same way (which sent every PDU of batch 1 over link 0).
func batchCut(k uint64, q float64) uint64 {
	if r := math.Round(q); math.Abs(q-r) < 1e-9 {
		return uint64(r) // exact for whole shares, whatever k
	}
	return uint64(math.Round(float64(k+1)*q) - math.Round(float64(k)*q))
}

func (s *batch) SetLinkState(int, LinkState) {}

// duplicate sends every PDU on both links; the receiver keeps the first copy.
type duplicate struct{}

func (duplicate) Pick(uint64, int, time.Duration) Links { return BothLinks }
func (duplicate) SetLinkState(int, LinkState)           {}
