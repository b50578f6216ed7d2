//go:build !linux

package nft

import "errors"

var errUnsupported = errors.New("nft: nftables needs Linux")

// Probe fails: nftables is a Linux facility.
func Probe(nsFd int) (Backend, error) { return BackendNone, errUnsupported }

// Apply fails: nftables is a Linux facility.
func Apply(nsFd int, table string, chains []Chain) (Backend, error) {
	return BackendNone, errUnsupported
}

// Delete fails: nftables is a Linux facility.
func Delete(nsFd int, table string) error { return errUnsupported }
