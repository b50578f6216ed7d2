package dcproxy

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/emu/internal/gsofwd"
	"github.com/dc-emu/emu/pdcp"
)

// ipv4Segments returns a buffer per (src, dst) pair, each with a segment
// of size bytes at [headroom:] that starts with an IPv4 header from src
// to dst, its index in the header's ID field.
func ipv4Segments(size int, pairs ...[2]string) ([][]byte, []int) {
	bufs, sizes := make([][]byte, len(pairs)), make([]int, len(pairs))
	for i, p := range pairs {
		bufs[i] = make([]byte, bufSize)
		seg := bufs[i][headroom:]
		seg[0] = 0x45
		seg[4], seg[5] = 0, byte(i)
		src, dst := netip.MustParseAddr(p[0]).As4(), netip.MustParseAddr(p[1]).As4()
		copy(seg[12:], src[:])
		copy(seg[16:], dst[:])
		sizes[i] = size
	}
	return bufs, sizes
}

var testTunnels = []gsofwd.Tunnel{
	{Prefix: netip.MustParsePrefix("10.2.1.0/24"), Link: 0},
	{Prefix: netip.MustParsePrefix("10.2.2.0/24"), Link: 1},
}

// TestTunnelledPacketsCrossBare: packets to or from a tunnel's subnet go
// on its link as they are, without a header or a COUNT, in their place
// among the PDUs; the receiving end passes them on at once and puts the
// PDUs in order around them; a control PDU is still malformed.
func TestTunnelledPacketsCrossBare(t *testing.T) {
	tx := mustTx(t, pdcp.SNBits12, pdcp.SchedulerConfig{Kind: pdcp.KindWeighted, Split: pdcp.Split{0, 1}})
	if err := tx.Tunnel(testTunnels); err != nil {
		t.Fatal(err)
	}
	const dc, srv = "10.2.0.2", "10.0.0.1"
	bufs, sizes := ipv4Segments(1400,
		[2]string{srv, dc}, [2]string{srv, "10.2.1.2"}, [2]string{srv, dc},
		[2]string{srv, "10.2.2.2"}, [2]string{"10.2.2.2", srv}, [2]string{srv, dc})
	orig := make([][]byte, len(bufs))
	for i, b := range bufs {
		orig[i] = bytes.Clone(b[headroom : headroom+sizes[i]])
	}
	g, _ := tx.Pack(bufs, sizes, headroom, 0)
	// The DC client's PDUs all go on link 1 (split 0:1); the tunnels
	// put one packet on link 0 and two on link 1, bare.
	if len(g[0]) != 1 || !bytes.Equal(g[0][0], orig[1]) {
		t.Fatalf("link 0 carries %d datagrams, want the packet to 10.2.1.2 bare", len(g[0]))
	}
	if len(g[1]) != 5 {
		t.Fatalf("link 1 carries %d datagrams, want 5", len(g[1]))
	}
	var sns []uint32
	for _, d := range g[1] {
		if gsofwd.Tunnelled(d) {
			continue
		}
		sn, _, err := pdcp.ParseHeader(d, pdcp.SNBits12)
		if err != nil {
			t.Fatal(err)
		}
		sns = append(sns, sn)
	}
	if len(sns) != 3 || sns[0] != 0 || sns[1] != 1 || sns[2] != 2 {
		t.Errorf("the DC client's PDUs have SNs %v, want 0, 1, 2: a tunnelled packet takes no COUNT", sns)
	}
	if !bytes.Equal(g[1][2], orig[3]) || !bytes.Equal(g[1][3], orig[4]) {
		t.Errorf("link 1's tunnelled packets are not the packets, bare, in their place")
	}
	if tx.Tunnelled != 3 || tx.Counters().PDUs != 3 {
		t.Errorf("tunnelled %d, PDUs %d; want 3 and 3", tx.Tunnelled, tx.Counters().PDUs)
	}

	// The receiving end: link 1's datagrams, the last PDU first (held
	// until the two before it come), then a control PDU.
	rx := mustRx(t, pdcp.SNBits12, 100*time.Millisecond)
	in := [][]byte{g[1][4], g[1][0], g[1][2], g[1][3], g[1][1], {0x00, 0x00}}
	rb, rs := arrivals(in)
	out := rx.Place(rb, rs, 0)
	var got []string
	for _, o := range out {
		p := o[headroom:]
		got = append(got, netip.AddrFrom4([4]byte(p[16:20])).String()+"#"+string('0'+rune(p[5])))
	}
	rx.Done()
	if g, w := strings.Join(got, " "), "10.2.0.2#0 10.2.2.2#3 10.0.0.1#4 10.2.0.2#2 10.2.0.2#5"; g != w {
		t.Errorf("released %s, want %s", g, w)
	}
	if rx.Tunnelled != 2 || rx.Malformed != 1 {
		t.Errorf("tunnelled %d, malformed %d; want 2 and 1", rx.Tunnelled, rx.Malformed)
	}
	if c := rx.Counters(); c.Received != 3 {
		t.Errorf("the receiver saw %d PDUs, want 3", c.Received)
	}
}

// BenchmarkPackTunnels is the transmit stage per wire segment with two
// tunnels that none of the segments matches: what tunnelling adds to
// every PDU (BenchmarkPack without them).
func BenchmarkPackTunnels(b *testing.B) {
	tx := mustTx(b, pdcp.SNBits18, pdcp.DefaultSchedulerConfig())
	if err := tx.Tunnel(testTunnels); err != nil {
		b.Fatal(err)
	}
	pairs := make([][2]string, 64)
	for i := range pairs {
		pairs[i] = [2]string{"10.0.0.1", "10.2.0.2"}
	}
	bufs, sizes := ipv4Segments(1448, pairs...)
	b.ReportAllocs()
	for b.Loop() {
		tx.Pack(bufs, sizes, headroom, 0)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/PDU")
}
