package delayline

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gonfqueue "github.com/florianl/go-nfqueue/v2"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/nfq/nfqtest"
	"github.com/dc-emu/emu/emu/internal/nft"
	"github.com/dc-emu/emu/internal/emutest"
)

// The benchmarks measure the delay line on the test network A — B — C
// (sender in A, receiver in C, the lines in B). Each runs one fixed-length
// measurement and reports its figures as metrics; ns/op is the length of
// that measurement and means nothing. Run them as root:
//
//	go test -run=^$ -bench=. ./emu/delayline/
//
// The TCP benchmarks need iperf3 (Debian package iperf3).
//
// Measured on the 2-core development VM (Firecracker, kernel with
// preempt=none, shared with other work; ranges over several runs):
//
//   - Precision, 1000 pkt/s, 10 ms: release lateness p50 34-48 µs, p99
//     74-122 µs with SCHED_FIFO and no spin (the default); a 20 µs spin
//     gives p50 2-7 µs at about the same CPU at this rate. Loop CPU 2-4 %.
//   - Fidelity, 10 ms ± 1 ms (τ 20 ms), 10 s: mean 10.22-10.23 ms against
//     the model's 10.18 ms for the same seed (path error +35..+45 µs), CV
//     10.6 % against the model's 10.7 %.
//   - RTT through two lines at delay 0: +38..+55 µs median over the bare
//     path (Mahimahi's mm-delay 0 added about 60 µs here).
//   - UDP, 1500-byte packets: 200 000 pkt/s (2.4 Gbit/s) released in full
//     with late-p99 30 µs at delay 0, and at 10 ms when the machine lets
//     the loop run; an unpaced sender reaches 240 000 pkt/s (2.9 Gbit/s) at
//     saturation. Loop CPU 3.8-4.4 µs per packet, most of it the kernel
//     forwarding the released packets inside the verdict write.
//   - TCP (iperf3, 128 MB socket buffers): bare 14.6-17.2 Gbit/s, delay 0
//     both ways 8.4-11.9 Gbit/s, 10 ms both ways 9.3-14.5 Gbit/s (1.3 Gbit/s
//     with the default 6 MB buffers: window-limited), 10 ms on data only
//     9.6-19 Gbit/s. Mahimahi's mm-link carried 2.1 Gbit/s here.
//   - Occasionally one run shows a single stall of 10-100 ms (late-p99 in
//     the tens of ms): the loop's timer fired but the non-preemptible
//     kernel did not switch to it while other programs' kernel work held
//     the CPU. Real-time priority cannot help there; a kernel with
//     preempt=full would.

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// BenchmarkPrecision measures how close to their due time the loop
// releases packets (delay 10 ms, no jitter, 1000 small packets/s for 3 s)
// for each way of scheduling the loop's thread and of waiting for the
// deadline, and what the loop's thread costs in CPU.
func BenchmarkPrecision(b *testing.B) {
	emutest.RequireRoot(b)
	for _, sched := range []nfq.Sched{nfq.SchedRealtime, nfq.SchedNice, nfq.SchedDefault} {
		for _, spin := range []time.Duration{0, 20 * time.Microsecond, 50 * time.Microsecond} {
			b.Run(fmt.Sprintf("sched=%s/spin=%v", strings.ReplaceAll(sched.String(), " ", ""), spin), func(b *testing.B) {
				emutest.Exclusive(b)
				p := Params{Delay: 10 * time.Millisecond}
				r := newRigWith(b, 1, &p, nil, rigOpts{sched: sched, spin: spin})
				lp := r.loops[0]
				if lp.Sched() != sched {
					b.Skipf("could not get scheduling %s (got %s)", sched, lp.Sched())
				}
				cpu0, t0 := lp.CPUTime(), time.Now()
				delays, _ := oneWay(b, r, 1000, 3000, 64)
				d := summarize(delays)
				cpu, wall := lp.CPUTime()-cpu0, time.Since(t0)
				s := lp.Snapshot()
				b.ReportMetric(us(s.Late.Quantile(0.5)), "late-p50-µs")
				b.ReportMetric(us(s.Late.Quantile(0.99)), "late-p99-µs")
				b.ReportMetric(us(s.Late.Quantile(0.999)), "late-p99.9-µs")
				b.ReportMetric((d.mean-10)*1000, "owd-10ms-mean-µs")
				b.ReportMetric((d.p99-10)*1000, "owd-10ms-p99-µs")
				b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%")
			})
		}
	}
}

// BenchmarkFidelity measures delay 10 ms with 10 % jitter and the default
// jitter time constant (20 ms) for 10 s at 1000 packets/s, and the same
// seed's model delays for the same send times, so the path's own error shows
// apart from the sampling error of a correlated process.
func BenchmarkFidelity(b *testing.B) {
	emutest.RequireRoot(b)
	emutest.Exclusive(b)
	p := Params{Delay: 10 * time.Millisecond, Jitter: time.Millisecond}
	r := newRig(b, 42, &p, nil)
	delays, sent := oneWay(b, r, 1000, 10_000, 64)
	s := summarize(delays)
	m := summarize(modelDelays(b, 42, p, sent, 0))
	b.ReportMetric(s.mean, "mean-ms")
	b.ReportMetric(100*s.std/s.mean, "cv-%")
	b.ReportMetric(m.mean, "model-mean-ms")
	b.ReportMetric(100*m.std/m.mean, "model-cv-%")
	b.ReportMetric((s.mean-m.mean)*1000, "path-error-µs")
}

// BenchmarkRTT compares the round trip of a small packet through two delay
// lines at delay 0 (one per direction, as emu runs them) with the bare path.
func BenchmarkRTT(b *testing.B) {
	emutest.RequireRoot(b)
	emutest.Exclusive(b)
	bare := pingPong(b, newRig(b, 1, nil, nil), 3000)
	zero := Params{}
	through := pingPong(b, newRig(b, 1, &zero, &zero), 3000)
	bs, ts := summarizeUs(bare), summarizeUs(through)
	b.ReportMetric(bs.p50, "bare-p50-µs")
	b.ReportMetric(bs.p99, "bare-p99-µs")
	b.ReportMetric(ts.p50, "line-p50-µs")
	b.ReportMetric(ts.p99, "line-p99-µs")
	b.ReportMetric(ts.p50-bs.p50, "added-p50-µs")
	b.ReportMetric(ts.p99-bs.p99, "added-p99-µs")
}

func summarizeUs(x []float64) delayStats { return summarize(x) }

// BenchmarkUDP sends 1500-byte packets (1472 bytes of UDP payload) from A
// at a fixed rate, or as fast as one thread can (rate=max), for 3 s and
// reports what the delay line releases, at delay 0 and 10 ms. The highest
// rate the line carries is the highest rate it releases in full with a
// small late-p99 and no overflow.
func BenchmarkUDP(b *testing.B) {
	emutest.RequireRoot(b)
	for _, delay := range []time.Duration{0, 10 * time.Millisecond} {
		for _, rate := range []int{50_000, 100_000, 150_000, 200_000, 0} {
			name := fmt.Sprintf("delay=%v/rate=%d", delay, rate)
			if rate == 0 {
				name = fmt.Sprintf("delay=%v/rate=max", delay)
			}
			b.Run(name, func(b *testing.B) {
				emutest.Exclusive(b)
				p := Params{Delay: delay}
				r := newRig(b, 1, &p, nil)
				nfqtest.UDPSocket(b, r.net.C, probePort, netip.AddrPort{})
				tx := nfqtest.UDPSocket(b, r.net.A, 0, netip.AddrPortFrom(r.net.CAddr, probePort))
				lp := r.loops[0]
				stop := floodUDP(tx, 1472, rate)
				time.Sleep(500 * time.Millisecond) // fill the line
				s0, cpu0, w0 := lp.Snapshot(), lp.CPUTime(), time.Now()
				time.Sleep(3 * time.Second)
				s1, cpu1, wall := lp.Snapshot(), lp.CPUTime(), time.Since(w0)
				stop()
				pkts := float64(s1.Released - s0.Released)
				b.ReportMetric(pkts/wall.Seconds(), "pkts/s")
				b.ReportMetric(float64(s1.ReleasedBytes-s0.ReleasedBytes)*8/wall.Seconds()/1e6, "Mbit/s")
				b.ReportMetric(float64(cpu1-cpu0)/pkts, "cpu-ns/pkt")
				b.ReportMetric(float64(s1.Overflow-s0.Overflow)/wall.Seconds(), "overflow/s")
				b.ReportMetric(us(s1.Late.Quantile(0.99)), "late-p99-µs")
			})
		}
	}
}

// floodUDP sends from fd on its own thread: rate packets/s in bursts every
// 100 µs from a real-time thread, or as fast as it can from a normal one
// when rate is 0 (a real-time thread that never sleeps would starve the
// kernel's own threads on its CPU).
func floodUDP(fd, size, rate int) (stop func()) {
	var quit atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		sched := nfq.SchedRealtime
		if rate == 0 {
			sched = nfq.SchedDefault
		}
		restore, _, err := nfq.LockThreadPrecise(sched)
		if err != nil {
			return
		}
		defer restore()
		buf := make([]byte, size)
		start := time.Now()
		sent := 0
		tick := unix.NsecToTimespec(int64(100 * time.Microsecond))
		for !quit.Load() {
			if rate == 0 {
				unix.Write(fd, buf)
				continue
			}
			due := int(time.Since(start).Seconds() * float64(rate))
			for ; sent < due; sent++ {
				unix.Write(fd, buf)
			}
			unix.Nanosleep(&tick, nil)
		}
	}()
	return func() { quit.Store(true); <-done }
}

// BenchmarkTCP measures iperf3 TCP goodput from A to C through delay lines
// in both directions (data and acknowledgements), with 0 and 10 ms each
// way, with 10 ms on the data direction only, and without any queue for
// reference, and with 10 ms and a little loss, where the data direction's
// line sees segments instead of GSO super-packets. CPU is the data
// direction's loop thread per packet it released (a GSO super-packet
// counts as one) and per 1500 bytes.
func BenchmarkTCP(b *testing.B) {
	emutest.RequireRoot(b)
	if _, err := exec.LookPath("iperf3"); err != nil {
		b.Skip("iperf3 not installed (Debian package iperf3)")
	}
	ten := Params{Delay: 10 * time.Millisecond}
	// A line that loses packets sees every wire segment (Params.PerPacket):
	// 0.001 % loss costs TCP almost nothing itself, so the case shows
	// what segmenting the super-packets costs.
	tenLoss := Params{Delay: 10 * time.Millisecond, Loss: 0.00001}
	cases := []struct {
		name     string
		fwd, rev *Params
	}{
		{"bare", nil, nil},
		{"delay=0s", &Params{}, &Params{}},
		{"delay=10ms", &ten, &ten},
		{"delay=10ms-data-only", &ten, &Params{}},
		{"delay=10ms-loss=0.001%", &tenLoss, &ten},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			emutest.Exclusive(b)
			r := newRig(b, 1, c.fwd, c.rev)
			var lp *Loop
			var s0 Snapshot
			var cpu0 time.Duration
			if len(r.loops) > 0 {
				lp = r.loops[0]
				s0, cpu0 = lp.Snapshot(), lp.CPUTime()
			}
			proc0 := processCPU()
			bps := iperf3(b, r, 5)
			proc := processCPU() - proc0
			b.ReportMetric(bps/1e6, "Mbit/s")
			if lp != nil {
				s1, cpu1 := lp.Snapshot(), lp.CPUTime()
				pkts := float64(s1.Released - s0.Released)
				b.ReportMetric(float64(cpu1-cpu0)/pkts, "cpu-ns/pkt")
				b.ReportMetric(float64(cpu1-cpu0)/(float64(s1.ReleasedBytes-s0.ReleasedBytes)/1500), "cpu-ns/1500B")
				b.ReportMetric(float64(s1.ReleasedBytes-s0.ReleasedBytes)/pkts, "bytes/pkt")
				b.ReportMetric(float64(s1.Overflow-s0.Overflow), "overflow")
				// Both lines and everything else in this process (iperf3
				// runs in its own).
				b.ReportMetric(float64(proc)/(float64(s1.ReleasedBytes-s0.ReleasedBytes)/1500), "proc-cpu-ns/1500B")
			}
		})
	}
}

// processCPU is the CPU time of this process so far, user and system.
func processCPU() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// iperf3 runs an iperf3 server in C and a client in A for secs seconds and
// returns the goodput the receiver measured, in bit/s.
func iperf3(b *testing.B, r *rig, secs int) float64 {
	b.Helper()
	// At 20 ms of RTT the default 6 MB receive buffer caps TCP near
	// 1.2 Gbit/s; give the ends room so the path is the limit.
	for _, n := range []*emutest.NetNS{r.net.A, r.net.C} {
		if err := n.Do(func() error {
			for _, f := range []string{"tcp_rmem", "tcp_wmem"} {
				if err := os.WriteFile("/proc/sys/net/ipv4/"+f, []byte("4096 131072 134217728"), 0o644); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatalf("tcp buffers: %v", err)
		}
	}
	srv := exec.Command("iperf3", "-s", "-1", "-B", r.net.CAddr.String())
	srv.Stderr = os.Stderr
	if err := r.net.C.Do(srv.Start); err != nil {
		b.Fatalf("iperf3 server: %v", err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	emutest.WaitFor(b, 5*time.Second, func() error {
		return r.net.C.Do(func() error {
			t, err := os.ReadFile("/proc/thread-self/net/tcp")
			if err != nil {
				return err
			}
			if !strings.Contains(string(t), ":1451 00000000:0000 0A") {
				return fmt.Errorf("iperf3 not listening yet")
			}
			return nil
		})
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs+20)*time.Second)
	defer cancel()
	cli := exec.CommandContext(ctx, "iperf3", "-c", r.net.CAddr.String(), "-t", fmt.Sprint(secs), "-J")
	var out strings.Builder
	cli.Stdout = &out
	if err := r.net.A.Do(cli.Start); err != nil {
		b.Fatalf("iperf3 client: %v", err)
	}
	if err := cli.Wait(); err != nil {
		b.Fatalf("iperf3 client: %v\n%s", err, out.String())
	}
	var res struct {
		End struct {
			SumReceived struct {
				BitsPerSecond float64 `json:"bits_per_second"`
			} `json:"sum_received"`
		} `json:"end"`
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		b.Fatalf("iperf3 output: %v", err)
	}
	return res.End.SumReceived.BitsPerSecond
}

// BenchmarkTCPGoNfqueue is the naive handler design.md describes, on
// github.com/florianl/go-nfqueue: a callback per packet that accepts it at
// once (delay 0, data direction only, GSO packets kept whole as ours are).
func BenchmarkTCPGoNfqueue(b *testing.B) {
	emutest.RequireRoot(b)
	if _, err := exec.LookPath("iperf3"); err != nil {
		b.Skip("iperf3 not installed (Debian package iperf3)")
	}
	emutest.Exclusive(b)
	r := newRig(b, 1, nil, nil)
	nf, err := gonfqueue.Open(&gonfqueue.Config{
		NetNS: int(r.net.B.NS), NfQueue: 1, MaxQueueLen: 65536, MaxPacketLen: 0xffff,
		Copymode: gonfqueue.NfQnlCopyMeta, Flags: gonfqueue.NfQaCfgFlagGSO, WriteTimeout: time.Second,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer nf.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int64
	fn := func(a gonfqueue.Attribute) int {
		nf.SetVerdict(*a.PacketID, gonfqueue.NfAccept)
		n.Add(1)
		return 0
	}
	errfn := func(error) int {
		if ctx.Err() != nil {
			return 1
		}
		return 0
	}
	if err := nf.RegisterWithErrorFunc(ctx, fn, errfn); err != nil {
		b.Fatal(err)
	}
	chains := []nft.Chain{{Name: "delay", Hook: nft.Prerouting, Priority: -300,
		Rules: []nft.QueueRule{{IIf: r.net.BFromA, Queue: 1}}}}
	if _, err := nft.Apply(int(r.net.B.NS), "emu-delay", chains); err != nil {
		b.Fatal(err)
	}
	bps := iperf3(b, r, 5)
	b.ReportMetric(bps/1e6, "Mbit/s")
	b.ReportMetric(float64(n.Load()), "pkts")
}
