package emu

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/config"
	"github.com/dc-emu/emu/emu/network"
	"github.com/dc-emu/emu/emu/units"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// BenchmarkPDCPProxyUDP pushes paced UDP through both PDCP proxies (18-bit
// SNs, batch 100 split 1:1) over links too fast to limit it, and reports
// what arrives: rate, packets/s, loss and whether the order held. The
// highest offered rate that arrives complete and in order is the proxies'
// ceiling on this machine.
func BenchmarkPDCPProxyUDP(b *testing.B) {
	emutest.RequireRoot(b)
	emutest.Exclusive(b)
	for _, rate := range []float64{200e6, 500e6, 1000e6, 1500e6} {
		b.Run(units.FormatRate(rate), func(b *testing.B) {
			for range b.N {
				em, f := startFastUDP(b)
				start := time.Now()
				sent := f.pace(rate, 3*time.Second)
				el := time.Since(start)
				waitPDCPEmpty(b, em)
				as := f.snapshot()
				inOrder := true
				for i := 1; i < len(as); i++ {
					if as[i].seq < as[i-1].seq {
						inOrder = false
					}
				}
				c := em.PDCP()["down"]
				em.Close()
				got := float64(len(as))
				b.ReportMetric(float64(sent)/el.Seconds(), "offered_pkt/s")
				b.ReportMetric(got/el.Seconds(), "pkt/s")
				b.ReportMetric(got*1428*8/el.Seconds()/1e6, "Mbit/s")
				b.ReportMetric(100*(1-got/float64(sent)), "loss%")
				b.Logf("offered %s: sent %d, received %d in order=%v; PDCP reordered %d, held max %d, given up %d, out of window %d",
					units.FormatRate(rate), sent, len(as), inOrder, c.Reordered, c.MaxBuffer, c.GivenUp, c.OutOfWindow)
			}
		})
	}
}

// startFastUDP starts an emulation whose links do not limit (10 Gbit/s,
// no delay), with both proxies (18-bit SNs) and more settings, and a UDP
// flow of 1400-byte datagrams from srv to the DC client.
func startFastUDP(b *testing.B, more ...config.Setting) (*network.Emulation, *udpFlow) {
	cfg, err := config.Resolve("throughput", append([]config.Setting{{Key: "link.trace", Value: "none"}, {Key: "link.rate", Value: "10gbit"},
		{Key: "link.delay", Value: "0"}, {Key: "link.jitter", Value: "0"}, {Key: "dc.sn_bits", Value: "18"}}, more...))
	if err != nil {
		b.Fatal(err)
	}
	em, err := network.Start(context.Background(), cfg, network.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv, cli := mustNode(b, em.Net, "srv"), mustNode(b, em.Net, "cli")
	return em, startUDPFlow(b, srv, cli, topo.ClientAddr(topo.PathDC), 1400)
}

// waitPDCPEmpty waits until the downlink receive proxy holds nothing.
func waitPDCPEmpty(b *testing.B, em *network.Emulation) {
	emutest.WaitFor(b, 3*time.Second, func() error {
		if st := em.PDCPBuffered(); len(st) > 0 && st[0] > 0 {
			return errorf("%d held", st[0])
		}
		return nil
	})
}

// BenchmarkPDCPProxyTCP measures iperf3 TCP goodput (CUBIC) to the DC
// client without the proxies and through them (18-bit SNs,
// TCP buffers up to 128 MB), over links too fast to limit it and over
// issue #39's 2 × 6 Gbit/s with 1 ms each way, one flow and four, and
// over 2 × 3 Gbit/s with unequal delays (10 and 30 ms one way) against
// equal ones (20 and 20 ms), the adaptive scheduler splitting.
func BenchmarkPDCPProxyTCP(b *testing.B) {
	emutest.RequireRoot(b)
	emutest.Exclusive(b)
	if _, err := exec.LookPath("iperf3"); err != nil {
		b.Skip("needs iperf3 (apt-get install iperf3)")
	}
	paths := []struct{ name, key, value string }{
		{"none", "dc.enabled", "false"}, {"pdcp", "dc.enabled", "true"},
	}
	links := []struct{ name, rate, delay1, delay2, sched string }{
		{"10gbit-0ms", "10gbit", "0", "0", "batch"}, {"6gbit-1ms", "6gbit", "1ms", "1ms", "batch"},
		{"3gbit-10+30ms", "3gbit", "10ms", "30ms", "adaptive"}, {"3gbit-20+20ms", "3gbit", "20ms", "20ms", "adaptive"},
	}
	for _, l := range links {
		for _, p := range paths {
			for _, streams := range []int{1, 4} {
				b.Run(fmt.Sprintf("%s/%s/P=%d", l.name, p.name, streams), func(b *testing.B) {
					for range b.N {
						cfg, err := config.Resolve("throughput", []config.Setting{{Key: "link.trace", Value: "none"}, {Key: "link.rate", Value: l.rate},
							{Key: "link1.delay", Value: l.delay1}, {Key: "link2.delay", Value: l.delay2}, {Key: "dc.scheduler", Value: l.sched},
							{Key: "link.jitter", Value: "0"}, {Key: "dc.sn_bits", Value: "18"},
							{Key: "tcp.buffer_max", Value: "128MB"}, {Key: p.key, Value: p.value}})
						if err != nil {
							b.Fatal(err)
						}
						em, err := network.Start(context.Background(), cfg, network.Options{})
						if err != nil {
							b.Fatal(err)
						}
						mbps, err := iperf3(em, 5*time.Second, "-C", "cubic", "-P", fmt.Sprint(streams))
						c := em.PDCP()["down"]
						drops := pathDrops(em)
						em.Close()
						if err != nil {
							b.Fatal(err)
						}
						b.ReportMetric(mbps, "Mbit/s")
						b.ReportMetric(float64(c.GivenUp), "given_up")
						b.ReportMetric(c.HoldMs["p99"], "hold_p99_ms")
						if c.Batch != nil {
							b.Logf("batch path: %+v; %s", *c.Batch, drops)
						} else {
							b.Logf("%s", drops)
						}
					}
				})
			}
		}
	}
}

// iperf3 runs an iperf3 download (server in srv, reverse mode client in
// cli, with more of the client's arguments) and returns the receiver's
// goodput in Mbit/s.
func iperf3(em *network.Emulation, d time.Duration, more ...string) (float64, error) {
	srv, _ := em.Net.Node("srv")
	cli, _ := em.Net.Node("cli")
	s := exec.Command("iperf3", "-s", "-1")
	if err := topo.StartIn(srv.NS, s); err != nil {
		return 0, err
	}
	defer func() { s.Process.Kill(); s.Wait() }()
	var out []byte
	var err error
	for range 50 { // the server needs a moment to listen
		c := exec.Command("iperf3", append([]string{"-c", topo.ServerAddr.String(), "-R", "-t", fmt.Sprint(int(d.Seconds())), "-f", "m"}, more...)...)
		var buf strings.Builder
		c.Stdout, c.Stderr = &buf, &buf
		if err = topo.StartIn(cli.NS, c); err != nil {
			return 0, err
		}
		err = c.Wait()
		out = []byte(buf.String())
		if err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return 0, fmt.Errorf("iperf3: %v: %s", err, out)
	}
	// The receiver's line: with several streams the SUM line, which
	// comes after the streams' own.
	var mbps float64
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, "receiver") {
			continue
		}
		f := strings.Fields(line)
		for i, w := range f {
			if w == "Mbits/sec" && i > 0 {
				if _, err := fmt.Sscanf(f[i-1], "%g", &mbps); err == nil {
					found = true
				}
			}
		}
	}
	if found {
		return mbps, nil
	}
	return 0, fmt.Errorf("iperf3: no receiver line in %s", out)
}

// BenchmarkPDCPDuplicate pushes paced UDP through both proxies with every
// PDU duplicated on both links (links too fast to limit it) and reports
// what arrives, the CPU time of the whole process per datagram sent
// (sender, proxies, the kernel's forwarding of both copies) and the
// transmit proxy's verdict latency.
func BenchmarkPDCPDuplicate(b *testing.B) {
	emutest.RequireRoot(b)
	emutest.Exclusive(b)
	for _, rate := range []float64{100e6, 300e6, 600e6} {
		b.Run(units.FormatRate(rate), func(b *testing.B) {
			for range b.N {
				em, f := startFastUDP(b, config.Setting{Key: "dc.scheduler", Value: "duplicate"})
				var ru0, ru1 unix.Rusage
				unix.Getrusage(unix.RUSAGE_SELF, &ru0)
				start := time.Now()
				sent := f.pace(rate, 3*time.Second)
				el := time.Since(start)
				waitPDCPEmpty(b, em)
				unix.Getrusage(unix.RUSAGE_SELF, &ru1)
				got := float64(len(f.snapshot()))
				c := em.PDCP()["down"]
				em.Close()
				cpu := time.Duration(ru1.Utime.Nano()-ru0.Utime.Nano()) + time.Duration(ru1.Stime.Nano()-ru0.Stime.Nano())
				b.ReportMetric(got/el.Seconds(), "pkt/s")
				b.ReportMetric(100*(1-got/float64(sent)), "loss%")
				b.ReportMetric(float64(cpu.Microseconds())/float64(sent), "cpu_us/pkt")
				b.Logf("offered %s: sent %d, received %d; duplicates discarded %d; batch path %+v",
					units.FormatRate(rate), sent, int(got), c.DuplicatesDiscarded, c.Batch)
			}
		})
	}
}
