// Package deps pins the module's chosen dependencies while the packages that
// use them are written. It is removed once every dependency has a real user.
package deps

import (
	_ "github.com/florianl/go-nfqueue/v2"
	_ "github.com/google/nftables"
	_ "github.com/quic-go/quic-go"
	_ "github.com/quic-go/quic-go/http3"
	_ "github.com/quic-go/quic-go/qlog"
	_ "github.com/spf13/cobra"
	_ "github.com/vishvananda/netlink"
	_ "github.com/vishvananda/netns"
	_ "golang.org/x/sys/unix"
	_ "gonum.org/v1/plot"
	_ "golang.org/x/net/http2"
)
