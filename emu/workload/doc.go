// Package workload is the vocabulary of what a flow does, shared by the
// configuration that names it (emu/config, the flows.N.* keys) and the
// endpoints that carry it out (emu/endpoint), across the process boundary
// between them: the kinds, directions and resumption modes, the bounds of
// their parameters, and the grammar of an objects flow's sizes and
// arrivals with its parsers. It is pure and knows no keys: its errors say
// what is wrong with a value and leave naming the key to the caller.
package workload
