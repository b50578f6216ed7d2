package capture

import (
	"context"
	"net/netip"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

// BenchmarkCaptureCPU sends b.N 1200-byte UDP datagrams over a veth
// between two namespaces, without capture and with a capture on one end
// or both, and reports per packet the CPU time of the sending thread
// (sendmsg, the veth, and the kernel work done in its context: the
// receive side's softirq and each capture socket's copy into its ring)
// and of the capture loops' threads (reading the ring, writing pcapng).
// Thread CPU clocks, unlike wall time, hardly move when other work shares
// the cores. The sender's difference from "off" plus the loops' time is
// what capturing costs per packet.
func BenchmarkCaptureCPU(b *testing.B) {
	emutest.Exclusive(b)
	for _, tc := range []struct {
		name string
		ends int
	}{{"off", 0}, {"one-end", 1}, {"both-ends", 2}} {
		b.Run(tc.name, func(b *testing.B) {
			a, bb := emutest.NewNetNS(b), emutest.NewNetNS(b)
			emutest.Veth(b, a, "va", "192.168.93.1/24", bb, "vb", "192.168.93.2/24")
			dst := netip.MustParseAddrPort("192.168.93.2:9000")
			rx, tx := udpPair(b, a, bb, dst)
			go func() {
				buf := make([]byte, 2048)
				for {
					if _, err := rx.Read(buf); err != nil {
						return
					}
				}
			}()
			dir := b.TempDir()
			var caps []*Capture
			for i, side := range []struct {
				ns    *emutest.NetNS
				iface string
			}{{a, "va"}, {bb, "vb"}}[:tc.ends] {
				c, err := Start(context.Background(), int(side.ns.NS), side.iface, MaxSnaplen, filepath.Join(dir, string(rune('a'+i))+".pcapng"))
				if err != nil {
					b.Fatal(err)
				}
				caps = append(caps, c)
			}
			payload := make([]byte, 1200)
			runtime.LockOSThread()
			start, cpu0 := time.Now(), threadCPU()
			for b.Loop() {
				if _, err := tx.Write(payload); err != nil {
					b.Fatal(err)
				}
			}
			sender, elapsed := threadCPU()-cpu0, time.Since(start)
			runtime.UnlockOSThread()
			var captured, dropped uint64
			var loops time.Duration
			for _, c := range caps {
				st, err := c.Close()
				if err != nil {
					b.Fatal(err)
				}
				captured += st.Packets
				dropped += st.Dropped
				loops += c.loopCPU
			}
			b.ReportMetric(float64(sender.Nanoseconds())/float64(b.N), "sender-ns/pkt")
			b.ReportMetric(float64(loops.Nanoseconds())/float64(b.N), "loops-ns/pkt")
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pkt/s")
			if tc.ends > 0 {
				b.ReportMetric(float64(dropped)/float64(captured+dropped), "drop-ratio")
			}
		})
	}
}
