package linkstats

import (
	"encoding/binary"
	"math"
	"testing"
	"time"
)

// fuzzSamples decodes 8-byte records into a valid series: time step (1 µs
// to 65 ms), bytes sent in the step, backlog, drops and how long the
// reading took, and a rate (0: an outage).
func fuzzSamples(b []byte) []Sample {
	var out []Sample
	var s Sample
	for len(b) >= 8 {
		r := b[:8]
		b = b[8:]
		s.T += (time.Duration(binary.LittleEndian.Uint16(r)) + 1) * time.Microsecond
		sent := uint64(binary.LittleEndian.Uint16(r[2:])) * 16
		s.Bytes += sent
		s.Packets += sent / MaxFrame
		s.Backlog = uint64(binary.LittleEndian.Uint16(r[4:])) * 8
		s.Drops += uint64(r[6] & 3)
		s.Took = time.Duration(r[6]>>2) * 100 * time.Microsecond // over MaxTook from 11 on
		s.Rate = float64(r[7]) * 1e6
		out = append(out, s)
	}
	return out
}

func FuzzQueueDelays(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 10, 0, 20, 100, 0, 200, 0, 0, 10, 0, 20})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 10, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		samples := fuzzSamples(b)
		q, err := QueueDelays(samples, 7*time.Millisecond)
		if err != nil {
			t.Fatalf("valid series rejected: %v", err)
		}
		for _, d := range []Dist{q.Measured, q.Derived} {
			if d.P50 < 0 || d.P50 > d.P95 || d.P95 > d.P99 || d.P99 > d.Max || d.Mean > d.Max+time.Nanosecond || d.Mean < 0 {
				t.Fatalf("distribution out of order: %+v", d)
			}
		}
		if used := Usable(samples); len(used) > 1 {
			samples := used
			span := samples[len(samples)-1].T - samples[0].T
			if q.Measured.Max > span+time.Nanosecond {
				t.Fatalf("delay %v longer than the series (%v)", q.Measured.Max, span)
			}
			sent := samples[len(samples)-1].Bytes - samples[0].Bytes
			if d := int64(q.Measured.Bytes+q.Unmeasured) - int64(sent); d > 2 || d < -2 {
				t.Fatalf("%d + %d bytes measured, %d sent", q.Measured.Bytes, q.Unmeasured, sent)
			}
		}
		for _, bin := range q.Bins {
			if bin.Mean > bin.Max+time.Nanosecond || bin.Mean < 0 {
				t.Fatalf("bin out of order: %+v", bin)
			}
		}
		s, err := Saturated(samples, SaturationOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(s.Ratio()) || math.IsInf(s.Ratio(), 0) || s.Seconds < 0 {
			t.Fatalf("saturation %+v", s)
		}
	})
}
