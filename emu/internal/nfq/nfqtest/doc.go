// Package nfqtest builds the small test network that tests and benchmarks
// of NFQUEUE users need: three private namespaces in a line, A —veth— B
// —veth— C, with B forwarding between them, and traffic helpers that open
// sockets inside the namespaces, send and sample from real-time threads and
// read the kernel's receive stamps. Everything is removed when the test
// ends.
package nfqtest
