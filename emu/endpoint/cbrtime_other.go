//go:build !linux

package endpoint

import (
	"net"
	"time"
)

const cbrOOBSize = 0

func enableRxTimestamps(c *net.UDPConn) error { return nil }

func rxTime(oob []byte) (time.Time, bool) { return time.Time{}, false }
