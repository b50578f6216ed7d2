package endpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/dc-emu/emu/emu/internal/tcpinfo"
	"github.com/dc-emu/emu/emu/results"
)

// Resumed path state (resume bdp), the BDP_FRAME idea with kernel TCP.
// The flow's first connection fetches one object like the measured ones
// and then asks its server for pathStatePath: the server reads the
// connection's TCP_INFO (minimum RTT, cwnd, delivery rate), remembers it
// for the client's address and sets the initcwnd of a route to the client
// (min(cwnd, BDP/MSS) segments), so every later connection to that client
// starts with that window; it answers with what it remembered. The client
// then opens its receive window (a route's initrwnd and the measured
// connections' SO_RCVBUF), or the server's first window would be cut to
// the 64 KiB the default receive buffer advertises. The server paces each
// measured connection at the remembered delivery rate (SO_MAX_PACING_RATE,
// which also turns on the kernel's internal pacing) until its first round
// trip is over; with resume_check it then compares the rate its first
// round was acknowledged at with the remembered one (bdpConn.watch).

// pathStatePath is where the first connection of a resume=bdp flow asks
// for the path state its server measured.
const pathStatePath = "/pathstate"

// trailerResumeCheck is the HTTP trailer of a response on a measured
// connection of a resume=bdp flow: checkOK, checkFallback, or checkOff
// without resume_check.
const (
	trailerResumeCheck = "Emu-Resume-Check"
	checkOK            = "ok"
	checkFallback      = "fallback"
	checkOff           = "off"
)

// kernelInitCwnd is Linux's initial window (TCP_INIT_CWND): a remembered
// state never starts a connection below it.
const kernelInitCwnd = 10

// maxRcvBuf bounds the receive buffer a resumed client asks for.
const maxRcvBuf = 64 << 20

// pathState is what a server remembers of the path to one client.
type pathState struct {
	minRTT   time.Duration
	cwnd     int    // segments
	mss      int    // bytes
	rate     uint64 // delivery rate, bytes per second
	initCwnd int    // segments, the route's initcwnd
}

// newPathState derives the state a connection leaves from its TCP_INFO at
// its end: BDP = delivery rate × min RTT, and the initial window
// min(cwnd, BDP/MSS), at least the kernel's own.
func newPathState(ti tcpinfo.Info) (pathState, error) {
	if ti.MinRTT <= 0 || ti.DeliveryRate == 0 || ti.SndCwnd == 0 || ti.SndMSS == 0 {
		return pathState{}, fmt.Errorf("path state: TCP_INFO has no RTT, cwnd or delivery rate yet (min_rtt %v, cwnd %d, delivery %d B/s, mss %d)",
			ti.MinRTT, ti.SndCwnd, ti.DeliveryRate, ti.SndMSS)
	}
	s := pathState{minRTT: ti.MinRTT, cwnd: int(ti.SndCwnd), mss: int(ti.SndMSS), rate: ti.DeliveryRate}
	bdpSegs := int(math.Ceil(float64(s.bdp()) / float64(s.mss)))
	s.initCwnd = max(min(s.cwnd, bdpSegs), kernelInitCwnd)
	return s, nil
}

// bdp is the remembered bandwidth-delay product in bytes.
func (s pathState) bdp() int64 { return int64(float64(s.rate) * s.minRTT.Seconds()) }

// result is the state as summary.json reports it (the server's half).
func (s pathState) result(check bool) results.PathState {
	mbps := results.Round3(float64(s.rate) * 8 / 1e6)
	return results.PathState{
		MinRTTMs: results.Round3(msDur(s.minRTT)), Cwnd: s.cwnd, MSS: s.mss, DeliveryMbps: mbps,
		BDPBytes: s.bdp(), InitCwnd: s.initCwnd, PacingMbps: mbps, Check: check,
	}
}

// clientWindow is the receive buffer (SO_RCVBUF, bytes) and the route's
// initrwnd (segments) a resumed client opens its window with: twice the
// larger of the server's initial window and the BDP, so the first window
// fits and slow start has room beyond it (the buffer is locked: the
// kernel no longer autotunes it).
func clientWindow(p results.PathState) (rcvBuf int64, initRwnd int) {
	w := max(int64(p.InitCwnd)*int64(p.MSS), p.BDPBytes)
	rcvBuf = min(max(2*w, 4<<20), maxRcvBuf)
	return rcvBuf, int(math.Ceil(float64(rcvBuf) / float64(max(p.MSS, 1))))
}

// ackRateLow is the safety check: whether acked bytes acknowledged over
// span come at less than half the remembered rate (bytes per second).
func ackRateLow(acked int64, span time.Duration, remembered uint64) bool {
	if span <= 0 {
		return false
	}
	return float64(acked)/span.Seconds() < float64(remembered)/2
}

// checkSpan is how long a measured connection's first-round ACKs are
// counted for after the first of them arrived: the time the first window
// (or the whole response, if smaller) takes at the remembered rate, at
// least 10 ms (the sampling is every 2 ms) and at most one RTT.
func checkSpan(s pathState, size int64) time.Duration {
	window := min(int64(s.initCwnd)*int64(s.mss), max(size, 1))
	d := time.Duration(float64(window) / float64(s.rate) * 1e9)
	return min(max(d, 10*time.Millisecond), s.minRTT)
}

// normalStartCaps are the pacing caps (bytes per second) of a connection
// that fell back, one per round trip: the rate of a normal slow start
// from the kernel's initial window in its second round (the first is
// over when the check decides), doubling each round, until it reaches the
// remembered rate, where the cap is lifted.
func normalStartCaps(s pathState) []uint64 {
	var caps []uint64
	r := 2 * float64(kernelInitCwnd*s.mss) / s.minRTT.Seconds()
	for ; r < float64(s.rate) && len(caps) < 32; r *= 2 {
		caps = append(caps, uint64(r))
	}
	return caps
}

// pathStateReply is the body of pathStatePath: the server's half of
// results.PathState.
func writePathState(w http.ResponseWriter, p results.PathState) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(p)
}

// fetchPathState asks the server for the path state it measured on the
// first connection h.
func (c *connector) fetchPathState(ctx context.Context, h *hconn) (results.PathState, error) {
	var p results.PathState
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+c.addr+pathStatePath, nil)
	if err != nil {
		return p, err
	}
	resp, err := c.roundTrip(h, req)
	if err != nil {
		return p, fmt.Errorf("path state: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return p, fmt.Errorf("path state: %w", err)
	}
	return p, nil
}

// fellBack reads a measured response's check trailer; the body must have
// been read to its end.
func fellBack(resp *http.Response) bool {
	return resp.Trailer.Get(trailerResumeCheck) == checkFallback
}
