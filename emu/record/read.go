package record

import (
	"context"
	"errors"
	"net"
	"os"
	"time"
)

// readLoop reads datagrams until ctx is done and hands each of the
// protocol's to handle with its size (UDP payload), the kernel's receive
// stamp (ns since the Unix epoch) and its sender.
func readLoop(ctx context.Context, c *net.UDPConn, handle func(d *datagram, size int, recv int64, from *net.UDPAddr)) error {
	buf := make([]byte, maxPacket)
	oob := make([]byte, 128)
	var d datagram
	for ctx.Err() == nil {
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, oobn, _, from, err := c.ReadMsgUDP(buf, oob)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if d.parse(buf[:n]) != nil {
			continue
		}
		handle(&d, n, stamp(oob[:oobn]), from)
	}
	return nil
}
