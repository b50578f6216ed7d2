package nft

import (
	"encoding/binary"
	"fmt"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
)

// ApplyDup replaces the ip-family table in namespace nsFd with one chain
// of dup rules, in one atomic batch. It fails on a kernel without the dup
// expression for IPv4 (CONFIG_NFT_DUP_IPV4), naming it.
func ApplyDup(nsFd int, table string, ch DupChain) error {
	if err := validateDup(table, ch); err != nil {
		return fmt.Errorf("nft: table %s: %w", table, err)
	}
	if err := checkNS(nsFd); err != nil {
		return err
	}
	c, err := nftables.New(nftables.WithNetNSFd(nsFd))
	if err != nil {
		return fmt.Errorf("nft: table %s: netlink: %w", table, err)
	}
	t := &nftables.Table{Name: table, Family: nftables.TableFamilyIPv4}
	c.AddTable(t)
	c.DelTable(t)
	c.AddTable(t)
	accept := nftables.ChainPolicyAccept
	prio := nftables.ChainPriority(ch.Priority)
	nc := c.AddChain(&nftables.Chain{
		Name: ch.Name, Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: hookNums[ch.Hook], Priority: &prio, Policy: &accept,
	})
	for _, r := range ch.Rules {
		c.AddRule(&nftables.Rule{Table: t, Chain: nc, Exprs: dupExprs(r)})
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("nft: table %s: install dup rules (needs nft_dup_ipv4, CONFIG_NFT_DUP_IPV4): %w", table, err)
	}
	return nil
}

// dupExprs encodes one DupRule: the matches, then the next hop and the
// device index loaded into registers for the dup statement.
func dupExprs(r DupRule) []expr.Any {
	var e []expr.Any
	if r.IIf != "" {
		e = append(e,
			&expr.Meta{Key: expr.MetaKeyIIFNAME, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: ifName(r.IIf)})
	}
	if r.Mark != 0 {
		e = append(e,
			&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binary.NativeEndian.AppendUint32(nil, r.Mark)})
	}
	if r.Proto != 0 {
		e = append(e,
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{r.Proto}})
	}
	to := r.To.As4()
	return append(e,
		&expr.Immediate{Register: 1, Data: to[:]},
		&expr.Immediate{Register: 2, Data: binary.NativeEndian.AppendUint32(nil, uint32(r.DevIndex))},
		&expr.Dup{RegAddr: 1, RegDev: 2, IsRegDevSet: true})
}
