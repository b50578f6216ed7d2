package endpoint

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/emutest"
)

// BenchmarkDownloadStamps measures what the send stamps and
// TCP_NOTSENT_LOWAT cost: a 100 MB download over loopback in this process
// (server and client share the two cores, so the path is CPU-bound and
// any cost shows), with stamps every 16 KiB or none, and for TCP with the
// low-water mark at 16 KiB, 128 KiB or the kernel's. It reports goodput
// and the CPU time of the whole process (both ends, user + system) per MB.
func BenchmarkDownloadStamps(b *testing.B) {
	emutest.Exclusive(b)
	dir := b.TempDir()
	cert, key, err := WriteSelfSigned(dir)
	if err != nil {
		b.Fatal(err)
	}
	const n = 100_000_000
	for _, tc := range []struct {
		name     string
		proto    Proto
		interval int64
		lowat    int
	}{
		{"quic/stamps16k", ProtoQUIC, 16 << 10, 0},
		{"quic/stamps64k", ProtoQUIC, DefaultStampInterval, 0},
		{"quic/none", ProtoQUIC, NoStamps, 0},
		{"tcp/stamps64k/lowat16k", ProtoTCP, DefaultStampInterval, 16 << 10},
		{"tcp/stamps16k/lowat16k", ProtoTCP, 16 << 10, 16 << 10},
		{"tcp/none/lowat16k", ProtoTCP, NoStamps, 16 << 10},
		{"tcp/stamps64k/lowat128k", ProtoTCP, DefaultStampInterval, 128 << 10},
		{"tcp/stamps64k/nolowat", ProtoTCP, DefaultStampInterval, NoLowat},
		{"tcp/none/nolowat", ProtoTCP, NoStamps, NoLowat},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ready := make(chan string, 1)
			served := make(chan error, 1)
			go func() {
				served <- Serve(ctx, ServerConfig{Proto: tc.proto, Listen: "127.0.0.1:0", CertFile: cert, KeyFile: key,
					StampInterval: tc.interval, NotSentLowat: tc.lowat, Ready: func(a string) { ready <- a }})
			}()
			var addr string
			select {
			case addr = <-ready:
			case err := <-served:
				b.Fatal(err)
			}
			var bytes int64
			var wall time.Duration
			cpu0 := cpuTime(b)
			for b.Loop() {
				r, err := Download(ctx, ClientConfig{Proto: tc.proto, URL: BytesURL(addr, n), CAFile: cert}, nil)
				if err != nil {
					b.Fatal(err)
				}
				bytes += r.Bytes
				wall += time.Duration(r.Seconds * float64(time.Second))
				if (r.OWD != nil) != (tc.interval > 0) {
					b.Fatalf("owd %+v with stamp interval %d", r.OWD, tc.interval)
				}
			}
			cpu := cpuTime(b) - cpu0
			b.ReportMetric(float64(bytes)*8/wall.Seconds()/1e6, "Mbit/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/(float64(bytes)/1e6), "cpu-ns/MB")
			cancel()
			if err := <-served; err != nil {
				b.Fatal(err)
			}
		})
	}
}

// cpuTime is the user + system time of this process so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(fmt.Errorf("getrusage: %w", err))
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
