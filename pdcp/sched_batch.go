package pdcp

import "time"

// batch is the paper's scheduler: of every N consecutive COUNTs the first
// n0 = round(N·a/(a+b)) go on link 0 and the rest on link 1. It depends on
// the COUNT only, so one instance can serve any number of entities.
type batch struct {
	n, n0 uint64
}

func (s *batch) Pick(count uint64, _ int, _ time.Duration) Links {
	if count%s.n < s.n0 {
		return Link0
	}
	return Link1
}

func (s *batch) SetLinkState(int, LinkState) {}

// duplicate sends every PDU on both links; the receiver keeps the first copy.
type duplicate struct{}

func (duplicate) Pick(uint64, int, time.Duration) Links { return BothLinks }
func (duplicate) SetLinkState(int, LinkState)           {}
