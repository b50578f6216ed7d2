package config

import (
	"fmt"
	"slices"
	"time"

	"github.com/dc-emu/emu/emu/workload"
)

// validateWorkload reports what is wrong with flow i's kind and its
// parameters.
func (c *Config) validateWorkload(i int, f Flow, bad func(key, format string, args ...any)) {
	k, w := fmt.Sprintf("flows.%d.", i), f.Workload
	if !slices.Contains([]string{KindBulk, KindRR, KindCBR, KindObjects}, w.Kind) {
		bad(k+"kind", "want bulk, rr, cbr or objects (got %q)", w.Kind)
		return
	}
	switch w.Direction {
	case DirDown:
	case DirUp:
		if w.Kind != KindBulk && w.Kind != KindCBR {
			bad(k+"direction", "up applies to bulk and cbr flows; an %s flow sets its request and response sizes instead", w.Kind)
		}
	default:
		bad(k+"direction", "want down or up (got %q)", w.Direction)
	}
	// What each protocol can do.
	switch {
	case w.Kind == KindCBR && f.Proto != ProtoUDP:
		bad(k+"kind", "cbr sends plain UDP datagrams, not %s: set %sproto=udp (or set kind=cbr after proto)", f.Proto, k)
	case w.Kind != KindCBR && f.Proto == ProtoUDP:
		bad(k+"proto", "udp carries cbr flows only (kind is %s)", w.Kind)
	}
	if f.Path == PathMPTCP && (w.Kind != KindBulk || w.Direction != DirDown) {
		bad(k+"kind", "over path mptcp emu runs bulk downloads only (kind %s, direction %s)", w.Kind, w.Direction)
	}
	goOnly := w.Kind != KindBulk || w.Direction == DirUp || w.Resume != ResumeOff
	if goOnly && (f.ServerImpl == "ngtcp2" || f.ClientImpl == "ngtcp2") {
		what := w.Kind
		if w.Kind == KindBulk {
			what = "bulk " + w.Direction
		}
		bad(k+"kind", "%s (resume %s) needs emu's own endpoints (quic-go or go) at both ends: ngtcp2's examples only download", what, w.Resume)
	}

	switch w.Kind {
	case KindRR:
		for _, s := range []struct {
			key string
			n   int64
		}{{"request", w.Request}, {"response", w.Response}} {
			if err := workload.CheckTransaction(s.n); err != nil {
				bad(k+s.key, "%v", err)
			}
		}
		if w.Interval < 0 || w.Interval > time.Hour {
			bad(k+"interval", "%v out of range (0 = back to back, at most 1h)", w.Interval)
		}
	case KindCBR:
		if err := workload.CheckCBRPacket(w.Packet); err != nil {
			bad(k+"packet", "%v", err)
		}
		if w.Rate > 0 && w.Interval > 0 {
			bad(k+"rate", "give a rate or an interval, not both (interval is %v)", w.Interval)
		}
		if err := workload.CheckCBRInterval(w.Packet, w.CBRInterval()); err != nil {
			key := k + "interval"
			if w.Rate > 0 {
				key = k + "rate"
			}
			bad(key, "%v", err)
		}
	case KindObjects:
		// The spec and the arrivals were parsed when they were set.
		if w.Objects.Dist == "" {
			bad(k+"objects", "%v", workload.ErrNoObjects)
			break
		}
	}
	if w.Kind != KindBulk {
		if w.Count < 0 {
			bad(k+"count", "must not be negative (got %d)", w.Count)
		} else if err := workload.CheckEnd(w.Kind, w.Objects, w.Count, f.Duration); err != nil && (w.Kind != KindObjects || w.Objects.Dist != "") {
			bad(k+"count", "%v", err)
		}
	}

	if err := workload.CheckResume(w.Kind, w.Resume, f.Proto); err != nil {
		bad(k+"resume", "%v", err)
	}
	if err := workload.CheckResumeCheck(w.Resume, w.ResumeCheck); err != nil {
		bad(k+"resume_check", "%v: set %sresume=bdp (resume is %s)", err, k, w.Resume)
	}

	if w.Steered() {
		if f.Path != PathDC || !c.DC.Enabled {
			bad(k+"scheduler", "only DC flows cross the PDCP proxies (path %s, dc.enabled=%v)", f.Path, c.DC.Enabled)
			return
		}
		c.validateFlowScheduler(i, bad)
	}
}
