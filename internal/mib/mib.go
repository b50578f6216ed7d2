// Package mib reads the kernel's network counters as /proc/net/snmp and
// /proc/net/netstat give them: each group ("Udp", "MPTcpExt") is a line
// of names and a line of values, both behind the group's name. The files
// are per network namespace: read through /proc/thread-self/net on a
// thread inside the namespace.
package mib

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Paths of the calling thread's namespace's counters.
const (
	SNMP    = "/proc/thread-self/net/snmp"
	Netstat = "/proc/thread-self/net/netstat"
)

// Group returns the counters of group in the file at path, by name. A
// value that is not an integer is left out.
func Group(path, group string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 16<<10), 1<<20) // TcpExt's lines are long
	var names []string
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), group+":")
		if !ok {
			continue
		}
		if names == nil {
			names = strings.Fields(rest)
			continue
		}
		vals := strings.Fields(rest)
		m := make(map[string]int64, len(names))
		for i, name := range names {
			if i < len(vals) {
				if v, err := strconv.ParseInt(vals[i], 10, 64); err == nil {
					m[name] = v
				}
			}
		}
		return m, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no %s counters in %s", group, path)
}

// Counter returns one counter of group in the file at path.
func Counter(path, group, name string) (int64, error) {
	m, err := Group(path, group)
	if err != nil {
		return 0, err
	}
	v, ok := m[name]
	if !ok {
		return 0, fmt.Errorf("no %s %s in %s", group, name, path)
	}
	return v, nil
}
