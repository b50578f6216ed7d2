package emu

import (
	"sort"
	"time"

	"github.com/dc-emu/emu/emu/link"
)

// dirSample is one reading of a link direction's rate limiter.
type dirSample struct {
	Bytes, Packets uint64 // cumulative, Ethernet frames
	BacklogBytes   uint64
	Drops          uint64
}

// linkSample is one reading of every link direction, at T since the epoch.
type linkSample struct {
	T    time.Duration
	Dirs []dirSample
	// PDCP is the number of packets the device-side proxy holds, per
	// direction in use.
	PDCP []int
}

// ipBytes is the IP-layer part of a rate limiter's count: it counts each
// frame's Ethernet header too.
func (d dirSample) ipBytes() uint64 {
	h := d.Packets * link.EtherHeader
	if h > d.Bytes {
		return 0
	}
	return d.Bytes - h
}

// sampleAt returns the last sample taken at or before t (the first one if
// none).
func sampleAt(samples []linkSample, t time.Duration) linkSample {
	i := sort.Search(len(samples), func(i int) bool { return samples[i].T > t })
	if i == 0 {
		return samples[0]
	}
	return samples[i-1]
}
