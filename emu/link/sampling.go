package link

import "time"

// SampleInterval is how often a run reads its rate limiters. The queueing
// delay measured from the readings can be off by at most twice the
// interval, and a queue shorter than the interval can never be proved
// saturated (package linkstats); at 10 ms both are within what a run
// reports. A round of readings is one qdisc dump per gateway: 40–81 µs of
// the sampler thread's CPU for the four directions of a run, 0.4–0.8 % of
// a core (TestSamplerAgreesWithShaperStats, TestQuietRunFidelity, on the
// 2-core development VM while other work loaded it; a class and a leaf
// dump per direction through vishvananda/netlink took 370–410 µs per
// round, 4 % of a core, there).
const SampleInterval = 10 * time.Millisecond
