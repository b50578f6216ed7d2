package emutest

import (
	"testing"

	"github.com/dc-emu/emu/internal/mib"
)

// SNMP reads a counter of /proc/net/snmp (group "Tcp", field "OutSegs",
// say) as a namespace sees it; do runs a function inside that namespace
// (NetNS.Do, or a node's Do). The file holds each group as a line of
// field names and a line of values.
func SNMP(tb testing.TB, do func(func() error) error, group, field string) int64 {
	tb.Helper()
	var v int64 = -1
	err := do(func() error {
		var err error
		v, err = mib.Counter(mib.SNMP, group, field)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
