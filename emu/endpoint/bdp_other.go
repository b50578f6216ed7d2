//go:build !linux

package endpoint

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
)

// Resumed path state needs Linux's TCP_INFO, routes and pacing.

var errNoBDP = errors.New("resume bdp: only on Linux")

type bdpServer struct{}

type bdpConn struct{}

func newBDPServer(*ServerConfig) *bdpServer { return nil }

func (b *bdpServer) close() error { return nil }

func (b *bdpServer) connContext(ctx context.Context, _ net.Conn) context.Context { return ctx }

func servePathState(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, errNoBDP.Error(), http.StatusNotFound)
}

func bdpConnFrom(context.Context) *bdpConn { return nil }

func (bc *bdpConn) start(int64) {}

func (bc *bdpConn) result(context.Context) string { return checkOff }

func setRouteWindow(netip.Addr, int, int) (func() error, error) { return nil, errNoBDP }

func setRcvBufFD(int, int) error { return errNoBDP }
