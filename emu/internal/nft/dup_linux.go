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
	var rules [][]expr.Any
	for _, r := range ch.Rules {
		rules = append(rules, dupExprs(r))
	}
	return installIPv4(nsFd, table, ch.Name, ch.Hook, ch.Priority, rules, "dup rules (needs nft_dup_ipv4, CONFIG_NFT_DUP_IPV4)")
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

// dupExprs encodes one DupRule: the matches, then the next hop and the
// device index loaded into registers for the dup statement.
func dupExprs(r DupRule) []expr.Any {
	var e []expr.Any
	if r.IIf != "" {
		e = append(e, metaCmp(expr.MetaKeyIIFNAME, expr.CmpOpEq, ifName(r.IIf))...)
	}
	if r.Mark != 0 {
		e = append(e, metaCmp(expr.MetaKeyMARK, expr.CmpOpEq, binary.NativeEndian.AppendUint32(nil, r.Mark))...)
	}
	if r.Proto != 0 {
		e = append(e, metaCmp(expr.MetaKeyL4PROTO, expr.CmpOpEq, []byte{r.Proto})...)
	}
	to := r.To.As4()
	return append(e,
		&expr.Immediate{Register: 1, Data: to[:]},
		&expr.Immediate{Register: 2, Data: binary.NativeEndian.AppendUint32(nil, uint32(r.DevIndex))},
		&expr.Dup{RegAddr: 1, RegDev: 2, IsRegDevSet: true})
}
