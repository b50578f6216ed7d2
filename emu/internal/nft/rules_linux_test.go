package nft

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/google/nftables/expr"
	"github.com/google/nftables/xt"
)

func TestNFQInfoV3(t *testing.T) {
	// queuenum 258, queues_total 1, flags bypass, host order (little endian
	// here), padded to 8 bytes.
	got := nfqInfoV3(258, true)
	if want := []byte{2, 1, 1, 0, 1, 0, 0, 0}; !bytes.Equal(got, want) {
		t.Errorf("xt_NFQ_info_v3 % x, want % x", got, want)
	}
}

func TestRuleExprs(t *testing.T) {
	r := QueueRule{IIf: "gwc-l1", Proto: 17, Queue: 3, Bypass: true,
		Dst: []netip.Prefix{netip.MustParsePrefix("10.1.2.3/16"), netip.MustParsePrefix("fd00::/8")}}
	lists, err := ruleExprs(r, BackendXT)
	if err != nil {
		t.Fatal(err)
	}
	if len(lists) != 2 {
		t.Fatalf("%d rules for two prefixes, want 2", len(lists))
	}
	v4 := lists[0]
	// iifname, l4proto, nfproto, payload, bitwise, cmp, target
	if len(v4) != 2+2+2+1+1+1+1 {
		t.Fatalf("IPv4 rule has %d expressions", len(v4))
	}
	if c := v4[1].(*expr.Cmp); !bytes.Equal(c.Data, append([]byte("gwc-l1"), make([]byte, 10)...)) {
		t.Errorf("iifname compared with % x", c.Data)
	}
	if bw := v4[7].(*expr.Bitwise); !bytes.Equal(bw.Mask, []byte{255, 255, 0, 0}) {
		t.Errorf("mask % x", bw.Mask)
	}
	if c := v4[8].(*expr.Cmp); !bytes.Equal(c.Data, []byte{10, 1, 0, 0}) {
		t.Errorf("address compared with % x, want the masked prefix", c.Data)
	}
	tg := v4[9].(*expr.Target)
	if tg.Name != "NFQUEUE" || tg.Rev != 3 || !bytes.Equal(*tg.Info.(*xt.Unknown), nfqInfoV3(3, true)) {
		t.Errorf("target %+v", tg)
	}
	if p := lists[1][6].(*expr.Payload); p.Offset != 24 || p.Len != 16 {
		t.Errorf("IPv6 destination loaded from offset %d length %d", p.Offset, p.Len)
	}
	native, _ := ruleExprs(QueueRule{Queue: 9}, BackendNative)
	if q := native[0][0].(*expr.Queue); q.Num != 9 || q.Flag != 0 {
		t.Errorf("native queue %+v", q)
	}
}
