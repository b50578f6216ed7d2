package nft

import (
	"encoding/binary"
	"fmt"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// ApplyTProxy replaces the ip-family table in namespace nsFd with one
// prerouting chain of the TProxy's rules, in one atomic batch. It fails on
// a kernel without the socket or tproxy expressions (CONFIG_NFT_SOCKET,
// CONFIG_NFT_TPROXY), naming them.
func ApplyTProxy(nsFd int, table string, ch TProxyChain) error {
	if err := validateTProxy(table, ch); err != nil {
		return fmt.Errorf("nft: table %s: %w", table, err)
	}
	return installIPv4(nsFd, table, ch.Name, Prerouting, ch.Priority, tproxyExprs(ch.Proxy),
		"tproxy rules (needs nft_socket and nft_tproxy, CONFIG_NFT_SOCKET, CONFIG_NFT_TPROXY)")
}

// tproxyExprs encodes the two kinds of rule: a TCP segment of a connection
// a transparent socket owns is marked and accepted; a TCP segment for Dst
// from one of the interfaces is marked and handed to the proxy's port.
func tproxyExprs(p TProxy) [][]expr.Any {
	tcp := metaCmp(expr.MetaKeyL4PROTO, expr.CmpOpEq, []byte{unix.IPPROTO_TCP})
	mark := []expr.Any{
		&expr.Immediate{Register: 1, Data: binary.NativeEndian.AppendUint32(nil, p.Mark)},
		&expr.Meta{Key: expr.MetaKeyMARK, SourceRegister: true, Register: 1},
	}
	accept := &expr.Verdict{Kind: expr.VerdictAccept}
	owned := append(append(append([]expr.Any{}, tcp...),
		&expr.Socket{Key: expr.SocketKeyTransparent, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{1}}),
		append(mark, accept)...)
	out := [][]expr.Any{owned}
	dst := p.Dst.As4()
	for _, iif := range p.IIfs {
		e := append([]expr.Any{}, metaCmp(expr.MetaKeyIIFNAME, expr.CmpOpEq, ifName(iif))...)
		e = append(e, tcp...)
		e = append(e,
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 16, Len: 4},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: dst[:]},
		)
		e = append(e, mark...)
		e = append(e,
			&expr.Immediate{Register: 1, Data: binary.BigEndian.AppendUint16(nil, p.Port)},
			&expr.TProxy{Family: byte(nftables.TableFamilyIPv4), TableFamily: byte(nftables.TableFamilyIPv4), RegPort: 1},
		)
		out = append(out, e)
	}
	return out
}

// installIPv4 replaces the ip-family table in namespace nsFd with one
// base chain of rules, in one atomic batch; what names the rules and the
// kernel support they need in the error of a kernel that refuses them.
func installIPv4(nsFd int, table, chain string, hook Hook, prio int, rules [][]expr.Any, what string) error {
	if err := checkNS(nsFd); err != nil {
		return err
	}
	c, t, err := replaceTable(nsFd, table, nftables.TableFamilyIPv4)
	if err != nil {
		return err
	}
	nc := addChain(c, t, chain, hook, prio)
	for _, e := range rules {
		c.AddRule(&nftables.Rule{Table: t, Chain: nc, Exprs: e})
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("nft: table %s: install %s: %w", table, what, err)
	}
	return nil
}
