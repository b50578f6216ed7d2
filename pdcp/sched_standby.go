package pdcp

import "time"

// activeStandby sends everything on the active link while it is up (rate >
// 0), on the other link while the active one is down, and returns to the
// active link as soon as it is up again. With neither up (or no LinkState
// yet) it uses the active link.
type activeStandby struct {
	active int
	links  [2]LinkState
}

func (s *activeStandby) SetLinkState(i int, st LinkState) { s.links[i] = st }

func (s *activeStandby) Pick(uint64, int, time.Duration) Links {
	standby := 1 - s.active
	if !s.links[s.active].up() && s.links[standby].up() {
		return linkOf(standby)
	}
	return linkOf(s.active)
}
