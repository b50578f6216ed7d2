package results

// ProxyTiming is what the NFQUEUE PDCP proxies of one direction cost in
// time and what their NFQUEUEs held and dropped (docs/results.md),
// embedded in PDCPCounters. Only runs from before those proxies were
// removed (issue #49) have it: it is kept so that their summaries read
// whole. BatchPath holds the figures of the one data path now.
type ProxyTiming struct {
	// TxVerdictUs is the transmit proxy's verdict latency in µs: from the
	// kernel's receive timestamp of a packet to the write of its verdict
	// ("mean", "p50", "p99", "p999", "max", and "n" packets measured).
	TxVerdictUs map[string]float64 `json:"tx_verdict_us,omitempty"`
	TxQueue     *ProxyQueue        `json:"tx_queue,omitempty"`
	RxQueue     *ProxyQueue        `json:"rx_queue,omitempty"`
}

// ProxyQueue is one proxy's NFQUEUE as the kernel counts it, sampled every
// 50 ms: the most packets waiting for a verdict at a sample (the receive
// proxy's include what it holds for reordering) and the packets the
// kernel dropped because the queue or its socket buffer was full.
type ProxyQueue struct {
	HeldMax uint32 `json:"held_max"`
	Dropped uint64 `json:"dropped"`
}

// BatchPath is what the two ends of the PDCP batch path did for one
// direction, embedded in PDCPCounters: how much each
// system call carried, and what was lost outside the PDCP counters.
type BatchPath struct {
	// UDPSends counts the transmitting end's sends (each at most about
	// a millisecond of its link's rate), UDPReads the receiving end's
	// receive batches, TUNWrites its writes of SDUs back to the kernel.
	UDPSends  uint64 `json:"udp_sends"`
	UDPReads  uint64 `json:"udp_reads"`
	TUNWrites uint64 `json:"tun_writes"`
	// TUNRefused counts TUN writes the kernel refused once the device was
	// up (their SDUs were lost); SocketDrops the datagrams the receiving
	// gateway's UDP dropped with its socket buffer full (PDUs lost before
	// the receiver saw them). Both are losses the link did not cause.
	TUNRefused  uint64 `json:"tun_refused"`
	SocketDrops uint64 `json:"socket_drops"`
	// TUNRefusedErrno counts the refused writes' failed system calls by
	// errno name ("EIO": the device was down, "EINVAL": a packet the
	// kernel would not take, "other": an error without an errno), and
	// TUNRefusedFirstError is the first one's error text: what the
	// kernel said. TUNRefusedBeforeUp counts the writes refused before
	// the device was up (EIO) as the run started, apart: the other
	// gateway's first packet (its IPv6 router solicitation) can arrive
	// before this device is up, a loss before the run, not in it.
	TUNRefusedErrno      map[string]uint64 `json:"tun_refused_errno,omitempty"`
	TUNRefusedFirstError string            `json:"tun_refused_first_error,omitempty"`
	TUNRefusedBeforeUp   uint64            `json:"tun_refused_before_up,omitempty"`
	// TUNDropped counts the packets the transmitting gateway's TUN
	// dropped with its queue full, before the proxy read them: SDUs lost
	// before PDCP saw them, not by the link either.
	TUNDropped uint64 `json:"tun_dropped"`
	// SocketWaitMs is how long the bytes the receiving gateway's proxy
	// read had waited in its socket, in ms, estimated for each second
	// with traffic from looks every 10 ms (the bytes queued over the rate
	// the loop read at): "n" seconds, "mean" over the run, "p50" and
	// "max" of the seconds'. SocketQueuedMax is the most bytes of kernel
	// memory the socket held at one look.
	SocketWaitMs    map[string]float64 `json:"socket_wait_ms,omitempty"`
	SocketQueuedMax int                `json:"socket_queued_max"`
	// TunnelSent and TunnelDelivered count the other clients' packets
	// (single-link, MPTCP) that crossed the links beside the PDUs in the
	// same UDP, unnumbered: sent by the transmitting end, passed on by the
	// receiving one.
	TunnelSent      uint64 `json:"tunnel_sent,omitempty"`
	TunnelDelivered uint64 `json:"tunnel_delivered,omitempty"`
	// SendRealtimeS and ReceiveRealtimeS are how long, in seconds, the
	// transmitting end's loop and the receiving end's ran on real-time
	// threads: they do while light (under 25–50 Mbit/s, docs/design.md)
	// and are goroutines of Go's scheduler when busy. RealtimeSwitches
	// counts how often the two turned real-time or left.
	SendRealtimeS    float64 `json:"send_realtime_s"`
	ReceiveRealtimeS float64 `json:"receive_realtime_s"`
	RealtimeSwitches uint64  `json:"realtime_switches"`
}
