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
//     towards the other (pacer: a rate above what the path delivered, so
//     a queue stands at its bottleneck, with a pause every cycle that lets
//     the queue drain), and small probes every 10 ms, each stamped with
//     its send time and a sequence number.
//  3. Accounting: each receiver takes every arrival (the kernel's stamp)
//     into 10 ms bins (rxLog): bytes, losses (gaps in the sequence) and
//     tail drops, the link's pace while a queue stood, the delay of the
//     first packet after a pause that found the queue empty, the probes'
//     delays. It feeds back the rate, the queue and its verdict on the
//     last pause to the sender every 10 ms.
//  4. Derivation (pure, Derive): bins into a tracefmt.Trace in 10 ms
//     steps: capacity is the link's pace (or, where no queue stood, what
//     arrived), delay the nearest drained packet's, loss the stream's
//     lost share over a sliding second. docs/record.md says why.
//  5. Output (WriteFiles): PREFIX.down and PREFIX.up (Mahimahi),
//     PREFIX.delay and PREFIX.loss (the downlink's, 10 ms a line), the
//     plain CSV with every column and the probes' series, each headed or
//     accompanied by where, when and how it was recorded.
//
// Two paths (two --via addresses) are two sessions that start at the same
// instant of one clock, so the two links' correlation survives.
package record
