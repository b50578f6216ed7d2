// Package nfqtest builds the small test network that tests and benchmarks
// of NFQUEUE users need: three private namespaces in a line, A —veth— B
// —veth— C, with B forwarding between them, and traffic helpers that open
// sockets inside the namespaces. Everything is removed when the test ends.
package nfqtest
