package emutest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// SNMP reads a counter of /proc/net/snmp (group "Tcp", field "OutSegs",
// say) as a namespace sees it; do runs a function inside that namespace
// (NetNS.Do, or a node's Do). The file holds each group as a line of
// field names and a line of values.
func SNMP(tb testing.TB, do func(func() error) error, group, field string) int64 {
	tb.Helper()
	var v int64 = -1
	err := do(func() error {
		f, err := os.Open("/proc/thread-self/net/snmp")
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		var names []string
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) == 0 || fs[0] != group+":" {
				continue
			}
			if names == nil {
				names = fs
				continue
			}
			for i := range names {
				if names[i] == field && i < len(fs) {
					v, err = strconv.ParseInt(fs[i], 10, 64)
					return err
				}
			}
		}
		return fmt.Errorf("no %s %s in /proc/net/snmp", group, field)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}
