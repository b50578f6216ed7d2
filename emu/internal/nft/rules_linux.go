package nft

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/xt"
	"golang.org/x/sys/unix"
)

var hookNums = map[Hook]*nftables.ChainHook{
	Prerouting:  nftables.ChainHookPrerouting,
	Input:       nftables.ChainHookInput,
	Forward:     nftables.ChainHookForward,
	Output:      nftables.ChainHookOutput,
	Postrouting: nftables.ChainHookPostrouting,
}

// ruleExprs returns the expression lists of one QueueRule: one rule per
// destination prefix (a handful of prefixes is cheaper to walk than a set
// lookup, and needs no set object).
func ruleExprs(r QueueRule, b Backend) ([][]expr.Any, error) {
	q, err := queueExpr(r.Queue, r.Bypass, b)
	if err != nil {
		return nil, err
	}
	var common []expr.Any
	if r.IIf != "" {
		common = append(common, metaCmp(expr.MetaKeyIIFNAME, expr.CmpOpEq, ifName(r.IIf))...)
	}
	if r.OIf != "" {
		common = append(common, metaCmp(expr.MetaKeyOIFNAME, expr.CmpOpEq, ifName(r.OIf))...)
	}
	if r.Proto != 0 {
		common = append(common, metaCmp(expr.MetaKeyL4PROTO, expr.CmpOpEq, []byte{r.Proto})...)
	}
	if r.NotProto != 0 {
		common = append(common, metaCmp(expr.MetaKeyL4PROTO, expr.CmpOpNeq, []byte{r.NotProto})...)
	}
	if len(r.Dst) == 0 {
		return [][]expr.Any{append(common, q)}, nil
	}
	var out [][]expr.Any
	for _, p := range r.Dst {
		m := dstMatch(p.Masked())
		e := make([]expr.Any, 0, len(common)+len(m)+1)
		e = append(e, common...)
		e = append(e, m...)
		out = append(out, append(e, q))
	}
	return out, nil
}

// metaCmp loads a meta key and compares it with data.
func metaCmp(key expr.MetaKey, op expr.CmpOp, data []byte) []expr.Any {
	return []expr.Any{&expr.Meta{Key: key, Register: 1}, &expr.Cmp{Op: op, Register: 1, Data: data}}
}

// dstMatch matches the destination address against a prefix in an inet
// table: check the family first, then load, mask and compare the address.
func dstMatch(p netip.Prefix) []expr.Any {
	proto, off, size := byte(unix.NFPROTO_IPV4), uint32(16), 4
	if p.Addr().Is6() {
		proto, off, size = unix.NFPROTO_IPV6, 24, 16
	}
	addr := p.Addr().AsSlice()
	e := []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{proto}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: off, Len: uint32(size)},
	}
	if p.Bits() < size*8 {
		e = append(e, &expr.Bitwise{
			SourceRegister: 1, DestRegister: 1, Len: uint32(size),
			Mask: prefixMask(p.Bits(), size), Xor: make([]byte, size),
		})
	}
	return append(e, &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: addr})
}

func prefixMask(bits, size int) []byte {
	m := make([]byte, size)
	for i := range m {
		switch {
		case bits >= 8:
			m[i] = 0xff
			bits -= 8
		case bits > 0:
			m[i] = byte(0xff << (8 - bits))
			bits = 0
		}
	}
	return m
}

func ifName(s string) []byte {
	b := make([]byte, ifNameSize)
	copy(b, s)
	return b
}

// queueExpr encodes "queue num N [bypass]" for the backend.
func queueExpr(num uint16, bypass bool, b Backend) (expr.Any, error) {
	switch b {
	case BackendNative:
		q := &expr.Queue{Num: num, Total: 1}
		if bypass {
			q.Flag = expr.QueueFlagBypass
		}
		return q, nil
	case BackendXT:
		info := xt.Unknown(nfqInfoV3(num, bypass))
		return &expr.Target{Name: "NFQUEUE", Rev: 3, Info: &info}, nil
	}
	return nil, fmt.Errorf("no queue backend (%s)", b)
}

// nfqInfoV3 is struct xt_NFQ_info_v3 {__u16 queuenum, queues_total, flags}
// in host byte order, padded to XT_ALIGN (8 bytes) as iptables-nft sends it
// (nft_compat compares aligned sizes, so the padding is not load-bearing).
func nfqInfoV3(num uint16, bypass bool) []byte {
	const flagBypass = 0x01 // NFQ_FLAG_BYPASS
	b := make([]byte, 8)
	binary.NativeEndian.PutUint16(b[0:], num)
	binary.NativeEndian.PutUint16(b[2:], 1)
	if bypass {
		binary.NativeEndian.PutUint16(b[4:], flagBypass)
	}
	return b
}
