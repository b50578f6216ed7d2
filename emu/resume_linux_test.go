package emu

import (
	"fmt"
	"testing"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestResumeBDP fetches 1 MB objects over 50/10 Mbit/s and 300 ms RTT on
// new TCP connections, with resume off and bdp: the resumed connections
// start with the window the first connection left (the server's route to
// the client carried it as initcwnd, read back from the kernel) and
// finish sooner than a normal start's.
func TestResumeBDP(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Exclusive(t)
	fct := map[string]float64{}
	// Propagation bounds the RTT below, and a resumed connection's
	// window is the first one's; what the machine's lateness moves (a
	// longer measured RTT, a slower fetch, and the check's fallback, an
	// ACK rate its 2 ms TCP_INFO sampler measured under half the
	// remembered one) is judged by the watch.
	var missed []string
	for _, mode := range []string{"off", "bdp"} {
		sum, _ := runKinds(t, "dc.enabled=false", "flow.path=link1", "link1.down.rate=50mbit", "link1.up.rate=10mbit",
			"link1.delay=150ms", "link.jitter=0", "flow.proto=tcp", "flow.cc=cubic", "flow.kind=objects",
			"flow.objects=fixed:1MB", "flow.count=2", "flow.reuse=false", "flow.resume="+mode, "flow.resume_check="+map[string]string{"off": "false", "bdp": "true"}[mode])
		f := sum.Flows[0]
		if !f.Complete || f.FCTS == nil || len(f.Objects) != 2 {
			t.Fatalf("%s: %+v", mode, f)
		}
		fct[mode] = f.FCTS.P50
		if mode == "off" {
			continue
		}
		if f.Resume == nil || f.Resume.Path == nil {
			t.Fatalf("bdp: no path state in %+v", f.Resume)
		}
		p := f.Resume.Path
		t.Logf("path state %+v", *p)
		// The first connection's 1 MB ended in slow start: its window
		// (hundreds of segments) is far above the kernel's 10.
		if p.MinRTTMs < 295 || p.InitCwnd <= 10 || p.InitCwnd > p.Cwnd || p.DeliveryMbps <= 0 || p.DeliveryMbps > 55 {
			t.Errorf("path state %+v", *p)
		} else if p.MinRTTMs > 340 {
			missed = append(missed, fmt.Sprintf("path state: min RTT %.1f ms over 300 ms of propagation, want ≤ 340", p.MinRTTMs))
		}
		if p.RcvBuf < int64(p.InitCwnd*p.MSS) || p.InitRwnd <= p.InitCwnd || !p.Check {
			t.Errorf("client window or check: %+v", *p)
		}
		if p.Fallbacks != 0 {
			missed = append(missed, fmt.Sprintf("path state: %d fallbacks on an unchanged path, want 0", p.Fallbacks))
		}
		for _, o := range f.Objects {
			switch {
			case o.Fallback:
				missed = append(missed, fmt.Sprintf("object %+v fell back on an unchanged path, want resumed", o))
			case !o.Resumed:
				t.Errorf("object %+v: want resumed", o)
			}
		}
	}
	t.Logf("median FCT of 1 MB: off %.3f s, bdp %.3f s", fct["off"], fct["bdp"])
	// A normal start needs about 6 round trips for 1 MB here, the resumed
	// one 1 or 2; a loose bound keeps the test about the effect.
	if fct["bdp"] > 0.85*fct["off"] {
		missed = append(missed, fmt.Sprintf("median FCT of 1 MB: bdp %.3f s, want ≤ 0.85 × off's %.3f s", fct["bdp"], fct["off"]))
	}
	h.Check(t, missed)
}
