// Package linkstats turns a series of readings of one link direction's rate
// limiter into what the run reports about that direction: how long bytes
// waited in its queue, and the rate it delivered while it had a queue.
//
// A reading (Sample) is what a run gets from the kernel every few
// milliseconds: the HTB class's cumulative bytes and packets sent (Ethernet
// frames, 14 bytes of header each), the bfifo leaf's backlog in bytes, its
// drops, and the IP-layer rate the link was configured to at that moment.
//
// # Queueing delay, measured
//
// The queue is a FIFO. Let S(t) be the bytes sent by time t and A(t) the
// bytes accepted into the queue by t, A = S + backlog (dropped bytes never
// enter it). The byte that leaves at t is the S(t)-th byte accepted, so it
// arrived at A⁻¹(S(t)) and waited
//
//	sojourn(t) = t − A⁻¹(S(t)).
//
// Both counts are interpolated linearly between readings, so sojourn is
// piecewise linear in the byte count, and every byte that left gets one
// value: QueueDelays gives the distribution over the bytes (exact
// quantiles of the interpolated function, no histogram) and a series of
// fixed-width time bins. Interpolation can misplace a byte's departure and
// its arrival each by at most one sampling interval, so no byte's estimate
// is off by more than twice the interval, and no quantile either; when the
// queue drains at a constant rate and fills smoothly, as under a saturating
// flow, both counts are nearly linear and the error is far smaller (the
// tests measure it against a simulated FIFO).
//
// # Sampling
//
// The bound is in the intervals between readings, so a reading late by
// 40 ms makes a 40 ms error possible around it. A run should read its
// rate limiters from a real-time thread sleeping to absolute deadlines
// (an ordinary goroutine on a ticker missed readings by tens of
// milliseconds on a busy machine), stamp each reading with the middle of
// its requests and how long they took (Sample.Took; readings that took
// over MaxTook are left out), and read every 10 ms. Against a simulated
// FIFO with a 50 ms queue, p95 from 10 ms readings is within 1 % under a
// saturating flow and within 6 % for a queue that fills and drains every
// 54 ms (batches of a DC scheduler); readings 20–50 ms apart err by
// 10–16 % on the second, and 100 ms readings are within 1 % on the first
// only (4 % on the second is the luck of aliasing); 5 ms readings are
// within 1 % on both (sojourn_test.go). One reading costs 22–31 µs of CPU.
//
// The derived figure backlog ÷ rate (what a byte arriving at a reading
// would wait if the rate held) is given beside it, labelled derived, for
// comparison and for readers who know it from other tools.
//
// # Saturated rate
//
// Saturation finds the intervals between readings that began with more
// queued than the limiter was configured to send in them: the backlog at
// the start exceeds the configured rate's bytes over the interval, so a
// limiter sending at its rate never ran out. Over those intervals the
// IP-layer rate delivered is what the rate limiter could do, to be
// compared with the configured rate. The intervals are chosen by the
// configured rate, never by what was sent, which would favour the
// intervals that sent little. The proof needs a queue that holds more
// than an interval sends: with readings 100 ms apart only queues over
// about 100 ms of traffic can be found saturated, with readings 10 ms
// apart those over 10 ms. Where nothing is provable the figure is absent
// (0 saturated seconds), never a guess.
//
// The package is pure: it takes readings as data, reads no kernel state
// and starts nothing. The run's sampler and its result writers live
// elsewhere.
package linkstats
