package emu

import (
	"fmt"
	"testing"

	"github.com/dc-emu/emu/emu/results"
	"github.com/dc-emu/emu/internal/emutest"
)

// TestResumeBDP fetches 1 MB objects over 50/10 Mbit/s and 300 ms RTT on
// new TCP connections with resume bdp: the resumed connections start with
// the window the first connection left (the server's route to the client
// carried it as initcwnd, read back from the kernel), and each object is
// resumed or, where the check found the path changed, fell back.
// Propagation bounds the RTT below, and a resumed connection's window is
// the first one's. What the machine's lateness moves (a longer measured
// RTT, a slower fetch, and the check's fallback, an ACK rate its 2 ms
// TCP_INFO sampler measured under half the remembered one) is
// TestFidelityResumeBDP's, as is the gain over a normal start.
func TestResumeBDP(t *testing.T) {
	emutest.RequireRoot(t)
	emutest.Exclusive(t)
	f := resumeRun(t, "bdp")
	p := f.Resume.Path
	// The first connection's 1 MB ended in slow start: its window
	// (hundreds of segments) is far above the kernel's 10.
	if p.MinRTTMs < 295 || p.MinRTTMs > 3000 || p.InitCwnd <= 10 || p.InitCwnd > p.Cwnd || p.DeliveryMbps <= 0 || p.DeliveryMbps > 55 {
		t.Errorf("path state %+v", *p)
	}
	if p.RcvBuf < int64(p.InitCwnd*p.MSS) || p.InitRwnd <= p.InitCwnd || !p.Check {
		t.Errorf("client window or check: %+v", *p)
	}
	for _, o := range f.Objects {
		if o.Resumed == o.Fallback {
			t.Errorf("object %+v: want resumed or fallen back", o)
		}
	}
}

// TestFidelityResumeBDP: on TestResumeBDP's unchanged path no object falls
// back, the first connection measured the propagation's RTT (≤ 340 ms),
// and the resumed objects' median FCT is at most 0.85 times a normal
// start's: a normal start needs about 6 round trips for 1 MB here, the
// resumed one 1 or 2; a loose bound keeps the test about the effect.
func TestFidelityResumeBDP(t *testing.T) {
	emutest.RequireRoot(t)
	h := emutest.Fidelity(t)
	off, bdp := resumeRun(t, "off"), resumeRun(t, "bdp")
	var missed []string
	p := bdp.Resume.Path
	if p.MinRTTMs > 340 {
		missed = append(missed, fmt.Sprintf("path state: min RTT %.1f ms over 300 ms of propagation, want ≤ 340", p.MinRTTMs))
	}
	if p.Fallbacks != 0 {
		missed = append(missed, fmt.Sprintf("path state: %d fallbacks on an unchanged path, want 0", p.Fallbacks))
	}
	for _, o := range bdp.Objects {
		if !o.Resumed {
			missed = append(missed, fmt.Sprintf("object %+v on an unchanged path, want resumed", o))
		}
	}
	t.Logf("median FCT of 1 MB: off %.3f s, bdp %.3f s", off.FCTS.P50, bdp.FCTS.P50)
	if bdp.FCTS.P50 > 0.85*off.FCTS.P50 {
		missed = append(missed, fmt.Sprintf("median FCT of 1 MB: bdp %.3f s, want ≤ 0.85 × off's %.3f s", bdp.FCTS.P50, off.FCTS.P50))
	}
	h.Check(t, missed)
}

// resumeRun fetches TestResumeBDP's two objects with flow.resume=mode and
// returns the flow, which completed with an FCT and, with bdp, the path
// state.
func resumeRun(t *testing.T, mode string) results.FlowResult {
	t.Helper()
	sum, _ := runKinds(t, "dc.enabled=false", "flow.path=link1", "link1.down.rate=50mbit", "link1.up.rate=10mbit",
		"link1.delay=150ms", "link.jitter=0", "flow.proto=tcp", "flow.cc=cubic", "flow.kind=objects",
		"flow.objects=fixed:1MB", "flow.count=2", "flow.reuse=false", "flow.resume="+mode, "flow.resume_check="+map[string]string{"off": "false", "bdp": "true"}[mode])
	f := sum.Flows[0]
	if !f.Complete || f.FCTS == nil || len(f.Objects) != 2 {
		t.Fatalf("%s: %+v", mode, f)
	}
	if mode == "off" {
		return f
	}
	if f.Resume == nil || f.Resume.Path == nil {
		t.Fatalf("bdp: no path state in %+v", f.Resume)
	}
	t.Logf("path state %+v", *f.Resume.Path)
	return f
}
