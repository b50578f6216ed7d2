// Package mptcp is emu's interface to the kernel's Multipath TCP: the
// in-kernel path manager's endpoints and limits over generic netlink
// (family "mptcp_pm", no ip mptcp binary), the per-connection and
// per-subflow state of an MPTCP socket (getsockopt SOL_MPTCP: MPTCP_INFO,
// MPTCP_FULL_INFO, MPTCP_TCPINFO, MPTCP_SUBFLOW_ADDRS, with tcp_info decoded
// by package tcpinfo), and the per-namespace sysctls that say which path
// managers and packet schedulers the kernel offers.
//
// Everything acts in a network namespace the caller names by an open file
// descriptor; the path-manager client refuses to run without one, so a run
// never changes the host's MPTCP endpoints. Socket readers take the socket
// (a syscall.RawConn) and act wherever it lives; Reader.Read does not
// allocate, so a sampler can poll every subflow every few milliseconds.
//
// The package configures and reads; it does not open connections, choose
// endpoints for a topology, or write result files.
package mptcp
