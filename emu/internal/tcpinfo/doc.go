// Package tcpinfo decodes the kernel's struct tcp_info (getsockopt
// TCP_INFO) into plain Go values and reads it from a live socket without
// allocating, so a sampler can poll a connection every few milliseconds for
// the whole run.
//
// The struct grows with kernel versions and the kernel copies only as much
// as both sides know, so Info remembers the length the kernel returned and
// Has reports whether a field lies within it: a field past it is unknown,
// never zero. The same decoder reads the per-subflow tcp_info entries of
// MPTCP_TCPINFO (package mptcp), whose element size the kernel states.
//
// The package only decodes and reads; it writes no files (package results
// owns the log format) and knows nothing about connections or timing.
package tcpinfo
