// Package delayline is emu's one delay model, used on every kernel in place
// of sch_netem (whose jitter reorders packets; docs/design.md says why): it
// holds packets queued to an NFQUEUE until their due time and drops the
// lost ones, with delay, jitter and loss drawn from a seeded generator.
//
// The package has two halves. Line is pure: it takes arrival times ("now")
// and packet ids, decides loss and due times, holds the packets in a FIFO
// ring (order-preserving jitter) or a min-heap (reordering jitter), and
// emits verdicts through the small Verdicts interface when Release is
// called with a later now. Tests drive it with a fake clock and fixed seeds.
// Loop (Linux only) is the kernel side: one goroutine per queue, locked to
// its OS thread, that waits until the earlier of the next due time and the
// next packet, reads every queued packet's metadata, and answers a whole
// wake-up with one write of verdicts (in order-preserving mode, one batch
// verdict up to the highest due id). Nothing is allocated, and no goroutine
// or timer is started, per packet.
//
// # Delay model
//
// Delay of a packet = Delay + jitter, never below zero.
//
// Order-preserving jitter (default): a radio link delivers in order, so the
// jitter is a property of the link in time, not of each packet. It is a
// stationary Gaussian process J(t) with mean 0 and standard deviation
// Jitter: an Ornstein–Uhlenbeck process with time constant JitterCorr,
// smoothed by a second first-order filter with the same time constant, so
// its autocorrelation is (1 + t/τ)·exp(−t/τ) and its paths are smooth. The
// process is advanced exactly (not by Euler steps) by each actual
// inter-arrival time, so the delay of every packet is N(Delay, Jitter²)
// whatever the packet rate. Because the paths are smooth, J changes by about
// Jitter/JitterCorr per unit of time (0.05 for 1 ms over 20 ms), far less
// than time itself advances, so due times are already in arrival order;
// due = max(due, previous due) is kept as a safety net that binds only when
// Jitter approaches JitterCorr. (Per-packet independent delays followed by
// that max would bias the mean upward and shrink the spread as the packet
// rate grows.)
//
// Reordering jitter (Reorder): every packet draws its own delay from
// N(Delay, Jitter²) independently, like netem, and packets are released in
// order of due time, so they can overtake each other.
//
// Loss: Bernoulli with probability Loss, drawn for every arrival from its
// own generator, so the same seed loses the same packets (by arrival index)
// whatever the delay and jitter settings, and a higher Loss only adds
// losses. In order-preserving mode a lost packet gets its drop verdict as
// soon as every packet ahead of it has been released (at once when none is
// held): the kernel finds verdicted ids by walking its queue from the head,
// so a drop deep inside a long backlog would cost a walk over it.
//
// Burst loss (Params.Bursts): netem's Gilbert–Elliott model, two states with
// their own loss probabilities and per-packet transitions, for links whose
// losses come in bursts. It takes the place of Loss (never both), and draws
// twice per arrival from the loss generator, so it too repeats by seed.
//
// A delay that changes over time (a delay trace through SetParams) gives
// each packet the delay in force when it arrives. When the delay falls by
// more than the time between two packets, the later one would overtake the
// earlier: in order-preserving mode it waits behind it instead, as on a
// FIFO link, and Counters.FIFOHeld counts it.
//
// An arrival is what the kernel queues, and a verdict covers it whole. A
// sender with GSO (TCP, and UDP with UDP_SEGMENT: quic-go, ngtcp2) hands
// the kernel super-packets of 2 to 44 wire packets, which a veth carries
// unsegmented. A line that loses packets or delays each on its own
// (Params.PerPacket) therefore has its queue segment them (QueueConfig),
// so loss and reordering are per wire packet, as on a radio link; kept
// whole, a 1 % loss lost 1 % of the super-packets, each a burst, and a
// loss-based controller saw several times fewer loss events. A line that
// only delays in order keeps them whole: one verdict for up to 64 KB.
//
// Parameters can change while packets flow (SetParams); a change applies to
// packets arriving after it. Delays, jitter and loss come from two PCG
// generators seeded from the line's seed; a run records the seed to be
// repeated exactly.
package delayline
