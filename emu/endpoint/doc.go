// Package endpoint owns the two ends of every emulated download: an HTTP
// server that sends bytes and a client that fetches them and measures when
// each byte arrived. It speaks HTTP/3 over QUIC with quic-go, HTTP/2 over
// TLS 1.3 over TCP with Go's net/http (kernel congestion control chosen per
// socket), and drives Debian's ngtcp2 examples (gtlsserver, gtlsclient) as
// child processes so a second QUIC implementation can be compared. Servers
// and clients are chosen independently and interoperate (ALPN "h3").
//
// The package knows nothing about namespaces or topologies. A run starts
// each endpoint as its own process inside a node's network namespace (the
// emu binary re-executed as `emu endpoint server|client`), so a GC pause in
// one endpoint cannot stall another, and reads the process's stdout. The same
// code is callable in-process through Serve and Download.
//
// # Process protocol
//
// Server:
//
//	emu endpoint server --impl quic-go|ngtcp2|go --proto quic|tcp
//	    --listen IP:PORT --cert FILE --key FILE
//	    [--cc C] [--qlog FILE] [--root DIR] [--sizes N,N,...]
//	    [--keylog FILE] [--stamp-interval N] [--notsent-lowat N]
//	    [--mptcp] [--tcpinfo-log FILE] [--tcpinfo-interval 10ms] [--t0 UNIXNANO]
//
// When it listens it prints {"event":"ready","addr":"IP:PORT"} (the actual
// address; port 0 picks a free one). The Go servers then print one
// {"event":"accept","remote":"IP:PORT","cc":"cubic"} per connection, with the
// congestion control read back from the kernel (TCP, getsockopt) or fixed by
// the implementation (quic-go: "newreno"). It runs until SIGTERM or SIGINT,
// then closes every connection (so each qlog file ends with the connection's
// last event), and exits 0. Errors go to stderr with a non-zero exit status.
//
// --mptcp (go server) listens with Multipath TCP; the server fails at start
// if the kernel made the listener plain TCP. Accept lines then carry
// "mptcp":true, and a connection that is plain TCP once accepted (the client
// did not offer MP_CAPABLE) is closed at once and reported as
// {"event":"accept",...,"error":"MPTCP fell back to plain TCP: <why>","mptcp":true};
// the reason comes from the namespace's MPTcpExt fallback counters.
//
// --tcpinfo-log FILE (go server) samples the sender's struct tcp_info of
// every accepted connection every --tcpinfo-interval (default 10 ms; at
// least 1 ms) from one goroutine per connection, which stops with the
// connection after a last sample. Rows are results.TCPInfoHeader CSV, t_s
// in seconds since --t0 (default: the server's start): one per sample for
// TCP (subflow 0), one per subflow per sample for MPTCP (MPTCP_FULL_INFO;
// subflow = the kernel's subflow id, from 1, with the subflow's addresses
// and the congestion control sock_diag reports for the subflow itself).
// The first connection writes FILE, later ones numbered names as for qlog.
//
// Client:
//
//	emu endpoint client --impl quic-go|ngtcp2|go --proto quic|tcp
//	    --url https://IP:PORT/bytes/N --ca CERT [--size N] [--duration D]
//	    [--cc C] [--rcvbuf default|large] [--ack-thresh N] [--qlog FILE]
//	    [--recv-log FILE] [--t0 UNIXNANO] [--interval 100ms] [--handshake-timeout 10s]
//	    [--idle-timeout 10s] [--mptcp] [--owd-log FILE] [--keylog FILE]
//
// It prints {"event":"progress","t":T,"bytes":B} every --interval, T in
// seconds since --t0 (default: the client's start) and B the cumulative
// body bytes, then exactly one
//
//	{"event":"done","bytes":B,"seconds":S,"goodput_mbps":G,"complete":true,"error":"","cc":"newreno","rcvbuf_bytes":212992,
//	 "owd_ms":{"p50":P,"p95":P,"p99":P,"max":M,"mean":A,"n":N}}
//
// whatever happened (owd_ms only when the body had send stamps), and exits 0 only if the download completed. "cc" is
// the client side's controller (the sender's is the server's, printed in
// its accept line); "rcvbuf_bytes" the QUIC client's SO_RCVBUF. The
// measurement starts when the client begins to connect (the handshake is
// part of S; the ngtcp2 client is started at that moment). Size-limited
// (no --duration): S runs to the last body byte, complete means exactly the
// expected number of bytes arrived (--size, else N from /bytes/N, else
// Content-Length). Duration-limited: the client stops after --duration,
// counts only bytes that arrived within that window, and S is the window; if
// the body ends first, S runs to its last byte. G = B·8/S/10⁶. Failures
// (handshake timeout, connection refused, no route, server gone, short
// body) set "error", complete=false, and a one-line reason on stderr. On
// SIGTERM/SIGINT the client stops, prints the done line with what it
// measured (complete=false, error "interrupted"), closes qlog, and exits 1.
// --mptcp (go client) connects with Multipath TCP; a connection that is
// plain TCP once connected, or is no longer MPTCP when the body has
// arrived, fails the download with "MPTCP fell back to plain TCP: <why>".
// --recv-log FILE writes "t_s,bytes" CSV rows (seconds since t0, cumulative
// bytes): one per Read for the Go clients, one per size poll (every 100 ms)
// for ngtcp2. --owd-log FILE writes a results.OWDHeader row per send
// stamp (see below); --keylog FILE appends the TLS secrets (both sides; see
// below). ParseEvent reads every line kind; ServerArgs and ClientArgs
// build these argument lists so callers never spell the flags themselves.
//
// # Flow kinds
//
// Client flags --kind rr|cbr|objects, --up (bulk, cbr), --request,
// --response, --every, --count (rr), --packet, --every, --count (cbr),
// --objects, --arrivals, --seed, --count (objects), --new-conns,
// --resume off|1rtt|0rtt|bdp and --kind-log FILE run the other kinds
// (Workload); server flags --recv-log, --owd-log and --kind-log log what
// it receives (ServerWork). The done line then carries
// "workload":{"kind":…,…} with the kind's figures (results.FlowWorkload):
// rr latency_ms and transactions, cbr packets_sent, packets_received, loss,
// reordered and jitter_ms (its owd_ms is the datagrams'), objects fct_s and
// resume. Each kind's file says how it works: upload.go (POST /upload,
// stamped, the server answers what arrived), rr.go (/rr/N; one stream per
// transaction, or a new connection each), cbr.go (UDP, --url udp://IP:PORT/),
// objects.go (GET /bytes/N in sequence or at Poisson times), session.go
// and resume.go (the connections and their resumption). With --resume
// 0rtt the quic-go client sends the GET (or an rr request with its body)
// in 0-RTT and the response comes as 0.5-RTT data; uploads never go in
// 0-RTT. With --resume bdp (TCP) the client's first connection asks its
// server, started with --resume-bdp (and --resume-check), for the path
// state it measured, and the later connections start with it (bdp.go). The
// ngtcp2 endpoints only download.
//
// # URLs and sizes
//
// Every server answers GET /bytes/N with N bytes (N up to UnboundedSize;
// the Go servers generate them from one fixed buffer, the ngtcp2 server from
// sparse files it creates at start for UnboundedSize and each --sizes N, so
// the ngtcp2 server must be told the sizes). Duration-limited flows request
// BytesURL(addr, UnboundedSize). Any other path is a file under --root.
//
// # Send stamps and one-way delay
//
// The Go servers (quic-go, go) write a StampSize-byte send stamp at body
// offsets 0, K, 2K, ... of /bytes/N, K = --stamp-interval (default
// DefaultStampInterval, 64 KiB; -1: none); the format is in stamp.go. The
// body is written in pieces that never cross a stamp offset, so each stamp
// starts a Write of its own, and its time (wall clock, Unix ns: every
// namespace reads the same host clock) is taken just before that Write. At
// the default the pieces are the 64 KiB writes a body has without stamps,
// so stamping costs a clock read and a 16-byte copy per 64 KiB; a smaller
// K samples more often and makes more, smaller writes. The clients (the
// Go ones, which read the body) take the time of the Read that returns a
// stamp's first byte; one-way delay = that time − the stamp. A stamp is
// recognised by its offset and magic: a body whose first bytes are not one
// (the ngtcp2 server's sparse files, files under --root) gives no delays,
// and the ngtcp2 client reads no body here, so it has none either.
//
// What the delay includes, from the server's Write to the client's Read:
//
//   - the wait in the sender. quic-go v0.65's SendStream.Write returns
//     once all but the last packet's worth (≤ 1452 bytes) of a piece is
//     packed into STREAM frames, so a stamp is written when the piece before
//     it is packetized, and goes out in the next packet congestion control
//     and pacing allow. net/http's HTTP/2 Write returns when the piece is
//     written to the TLS connection, i.e. into the kernel socket buffer; the
//     TCP server sets TCP_NOTSENT_LOWAT (--notsent-lowat, default
//     DefaultNotSentLowat 16 KiB; -1: the kernel's, unlimited) on its
//     sockets and, before it takes a stamp's time, waits until its socket
//     polls writable (sendwait.go: less than half the mark unsent) unless
//     what is unsent drains within 1 ms at the socket's delivery rate, so
//     at most about 8 KiB plus one segment batch waits unsent ahead of a
//     stamp (3.3 ms at 20 Mbit/s), or 1 ms of data at high rates, where
//     waiting would let the socket run dry. A time taken before a Write
//     that then blocked in the kernel would count the drain of the piece
//     before (up to 64 KiB, 26 ms at 20 Mbit/s) as the stamp's delay. Without the
//     mark the autotuned send buffer holds about a congestion window of
//     unsent data and a stamp would wait about a round trip before it left;
//   - the network: propagation, the rate limiters' queues, the delay line,
//     PDCP's reordering hold;
//   - the receiver: the kernel's socket buffer until the client reads,
//     head-of-line blocking (bytes behind a lost packet wait for its
//     retransmission; a retransmitted stamp keeps its first send time, so
//     its delay includes the loss recovery), and the HTTP/3 or HTTP/2
//     stack's buffering. Over TCP a stamp is readable only once its whole
//     TLS record has arrived: Go's records grow to 16 KiB (6.6 ms at
//     20 Mbit/s); a QUIC packet is decrypted on its own.
//
// The done line's owd_ms summarises all stamps of the download (nearest-rank
// percentiles, results.DelayStats); the log has one row each: read time
// since --t0, body offset, delay. A stamp that does not match the ones
// before it (never seen from emu's servers) stops the delays with a warning
// on stderr; the download itself is unaffected.
//
// # TLS key logs
//
// --keylog FILE (server and client) appends the TLS 1.3 secrets of every
// connection in SSLKEYLOGFILE format (mode 0600), so Wireshark decrypts a
// capture with `tshark -r FILE.pcapng -o tls.keylog_file:KEYS -Y http3`
// (http2 for TCP). quic-go and the Go TCP endpoints write it through
// tls.Config.KeyLogWriter; gtlsserver and gtlsclient 0.12.1 through GnuTLS
// 3.7's SSLKEYLOGFILE environment variable, set for the child only. Every
// endpoint emu runs supports it.
//
// # Congestion control
//
// quic-go v0.65's congestion controller is hard-wired NewReno
// (internal/ackhandler builds NewCubicSender with reno=true); it is recorded
// as "newreno" and any other --cc is rejected. ngtcp2 takes cubic, reno,
// bbr, bbr2 (default cubic, passed explicitly so it is recorded). TCP takes
// any name the kernel accepts for TCP_CONGESTION (see
// /proc/sys/net/ipv4/tcp_available_congestion_control); the server sets it on
// the listening socket and again on every accepted socket (the server is the
// sender), the client on its socket before connect, and both read it back
// with getsockopt and fail if the kernel refused. Empty means the kernel
// default, read back and recorded. TCP keeps kernel buffer autotuning.
// With --mptcp the option is set on the MPTCP socket: the kernel
// (mptcp_setsockopt_sol_tcp_congestion) applies it to every subflow and to
// subflows that join later; the TCP_INFO log records each subflow's
// controller as the kernel reports it for that subflow.
//
// # Receive buffer (--rcvbuf, QUIC clients)
//
// The paper's "modified buffer" was a larger receive buffer and flow-control
// window for aioquic. Here:
//
//   - default (quic-go): the kernel-default UDP receive buffer
//     (net.core.rmem_default, 208 KiB on Debian) and quic-go's default flow
//     control (512 KiB initial stream and connection windows, auto-tuned up
//     to 6 MiB per stream and 15 MiB per connection). quic-go raises
//     SO_RCVBUF to 7 MiB (SO_RCVBUFFORCE when root) while it initialises its
//     Transport (sys_conn_buffers.go); the client forces that initialisation
//     before dialling and sets SO_RCVBUF back to the value the fresh socket
//     had, verified with getsockopt. The socket handed to quic-go is still
//     the *net.UDPConn, so GSO and ECN batching stay on (the tests check the
//     client's qlog for ECT(0) packets).
//   - large (quic-go): SO_RCVBUFFORCE of 8 MiB (the kernel doubles it: 16 MiB
//     reported; quic-go then leaves it) and fixed large windows: initial =
//     max = 16 MiB per stream and 24 MiB per connection.
//   - ngtcp2 client: gtlsclient has no socket-buffer option, and
//     net.core.rmem_default is not per-namespace, so the client reaches
//     gtlsclient's UDP socket from outside (pidfd_getfd, childRcvBuf) as
//     soon as it is open: default keeps the kernel default and uses
//     gtlsclient's own windows (15 MiB connection, 6 MiB stream initial,
//     auto-tuned to 24/16 MiB); large forces 8 MiB (16 MiB reported) and
//     sets initial = max = 16 MiB stream / 24 MiB connection like quic-go.
//     "rcvbuf_bytes" is the socket's size in both modes.
//   - TCP ignores the option (autotuning).
//
// # ACK threshold (--ack-thresh, the ngtcp2 client)
//
// How many ack-eliciting packets the receiver takes before it acknowledges
// at once (RFC 9000 §13.2 leaves the number to the receiver and recommends
// 2): gtlsclient 0.12.1's --ack-thresh, "the minimum number of the received
// ACK eliciting packets that triggers immediate acknowledgement", default
// 2; below it the receiver acknowledges on its max_ack_delay timer (25 ms).
// 0 passes nothing. quic-go has no such knob (quic-go issue #2482) and
// kernel TCP's delayed ACKs are the kernel's, so the check refuses it for
// the other clients. gtlsclient reads a batch of packets before it writes,
// so a busy client sends fewer ACKs than the threshold says: at 1 Gbit/s
// and 50 ms on the 2-core development VM, one per 9.9 data packets with 2
// and one per 19.9 with 20.
//
// # ngtcp2 specifics
//
// gtlsclient 0.12.1 does not verify the server certificate (the CA file is
// only checked to exist), exits 0 even after a handshake or idle timeout
// (the client recognises its "ERR_..." stderr lines and the short file), and
// with -q prints nothing else. Its download goes to a temporary file whose
// size is polled; in duration-limited mode the part already counted is
// punched out of the file so long flows use no disk. Both ngtcp2 children run
// in their own process group with Pdeathsig=SIGKILL, get SIGINT on stop (they
// then close their connections and qlog files) and SIGKILL after a grace
// period. qlog: the server's --qlog-dir output (<scid>.sqlog) is moved to the
// requested path when the server stops; the client writes --qlog-file.
// gtlsserver runs with --max-gso-dgrams=4: its default GSO batches of 64
// datagrams would reach a single-link path's rate limiter as one 64 KB
// packet (ngtcp2GSODatagrams says why). The Go endpoints keep their own
// GSO batches: the limiter's figures match with them (0.999 of a
// 6.67 Mbit/s link).
// gtlsserver mmaps the sparse file it sends, so what it sent stays in the
// page cache (clean, reclaimable) until the file is removed at stop.
//
// Debian 12's libngtcp2 0.12.1 caps its NewReno and CUBIC windows at 2.89 ×
// the largest delivery rate seen × the smallest RTT (its "target_cwnd" log
// line). Over queues deeper than that, ngtcp2 flows stop growing without
// a loss and competing flows keep the shares their first second gave
// them: in a fairness run at batch 25 over 100 ms queues nothing was
// dropped in 30 s and the windows stayed at 90 and 124 kB throughout
// (docs/reproduce-quick, Figs. 12b/c). quic-go and the kernel's TCP grow
// until a loss.
//
// qlog files of further connections to one server get a numbered name
// (server.sqlog, server.2.sqlog, ...).
package endpoint
