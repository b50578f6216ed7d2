// Package nfq is a minimal NFQUEUE client written for per-packet speed: it
// receives queued packets and sends verdicts over a raw netlink socket
// without allocating, without a goroutine per packet and without one
// system call per packet.
//
// It exists because the general-purpose client (github.com/florianl/go-nfqueue)
// allocates several objects per packet and sends each verdict in its own
// system call; BenchmarkGoNfqueue and BenchmarkQueue in this package measure
// both on the same path (see the package's test files for the numbers).
//
// The shape of the API follows from that: Recv fills a caller-owned slice of
// Packets from one recvmmsg call (payloads are sub-slices of the queue's own
// buffers, valid until the next Recv); verdict methods only append netlink
// messages to a send buffer, and Flush hands all of them to the kernel in
// one write. A FIFO user gives one AcceptUpTo per wake-up for a whole batch.
// Recv waits for the next packet or a deadline with nanosecond timeouts
// (ppoll), so on a thread prepared with LockThreadPrecise a loop can release
// held packets within tens of microseconds of their due time instead of the
// millisecond granularity of Go timers.
//
// A Queue belongs to one goroutine: Recv, the verdict methods and Flush must
// not be called concurrently. Close, Interrupt and Stats may be called from
// any goroutine.
package nfq
