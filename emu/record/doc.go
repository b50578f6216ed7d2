// Package record turns a live path into traces emu replays: `emu record`
// (Record, the near end) against `emu record serve` (Serve, the far end).
//
// A recording has five stages:
//
//  1. Handshake: one TCP control connection per path carries a JSON
//     request (refused unless it is a recording request of this version),
//     the clock exchange (the far end's clock against the near end's at the
//     least round trip, Cristian's method; exact on one host) and, at the
//     end, the far end's measurements.
//  2. Load: each end paces a saturating UDP stream of full-size packets
//     towards the other (pacer: a sending rate above what the path
//     delivered, so a small queue stands at its bottleneck, with a pause
//     every cycle that lets the queue drain), and small probes every
//     10 ms, each stamped with its send time and a sequence number.
//  3. Accounting: each receiver timestamps every arrival (the kernel's
//     stamp) into 10 ms bins: bytes delivered, packets lost (gaps in the
//     sequence), the least one-way delay, the probes' delays
//     (rxLog). It feeds back what it sees to the sender every 10 ms.
//  4. Derivation (pure, Derive): bins into a tracefmt.Trace in 10 ms
//     steps: capacity is what arrived plus what was lost on the way (a
//     lost packet used the link), delay the least one-way delay around the
//     step (the drains give it packets that found the queue empty), loss
//     the share of the stream's packets lost in the step.
//  5. Output (WriteFiles): PREFIX.down and PREFIX.up (Mahimahi),
//     PREFIX.delay and PREFIX.loss (the downlink's, 10 ms a line), the
//     plain CSV with every column and the probes' series, each headed or
//     accompanied by where, when and how it was recorded.
//
// Two paths (two --via addresses) are two sessions that start at the same
// instant of one clock, so the two links' correlation survives.
package record
