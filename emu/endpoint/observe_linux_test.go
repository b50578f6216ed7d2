package endpoint

import (
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/capture"
	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/internal/mib"
)

// Addresses of the two test namespaces of these tests: the server's end
// of the veth and the client's.
const (
	obsServerIP = "192.168.92.1"
	obsClientIP = "192.168.92.2"
)

// obsPair is a server and a client namespace joined by a veth (vs, vc),
// and a directory with a certificate for the server's address.
func obsPair(t *testing.T) (srv, cli *emutest.NetNS, dir, cert, key string) {
	t.Helper()
	srv, cli = emutest.NewNetNS(t), emutest.NewNetNS(t)
	emutest.Veth(t, srv, "vs", obsServerIP+"/24", cli, "vc", obsClientIP+"/24")
	dir = emutest.TempDir(t)
	cert, key, err := WriteSelfSigned(dir, netip.MustParseAddr(obsServerIP))
	if err != nil {
		t.Fatal(err)
	}
	return srv, cli, dir, cert, key
}

// tcpSegsSent is every TCP segment the namespace has sent: OutSegs
// leaves out retransmitted segments, so RetransSegs is added, but a
// retransmitted SYN-ACK is counted in both (tcp_make_synack counts every
// SYN-ACK it builds in OutSegs, tcp_rtx_synack the retransmission in
// RetransSegs): TcpExt's TCPSynRetrans, the SYN and SYN-ACK
// retransmissions, is taken off again. A lost handshake ACK is legal on
// any path; without this the capture would hold one packet fewer than
// "sent". Only for a namespace that only accepts: a retransmitted SYN
// (of a connect) is not in OutSegs.
func tcpSegsSent(t *testing.T, ns *emutest.NetNS) int64 {
	t.Helper()
	return emutest.SNMP(t, ns.Do, "Tcp", "OutSegs") + emutest.SNMP(t, ns.Do, "Tcp", "RetransSegs") - tcpExt(t, ns, "TCPSynRetrans")
}

// tcpExt reads a TcpExt counter of /proc/net/netstat in the namespace.
func tcpExt(t *testing.T, ns *emutest.NetNS, field string) int64 {
	t.Helper()
	v := int64(-1)
	err := ns.Do(func() error {
		var err error
		v, err = mib.Counter(mib.Netstat, "TcpExt", field)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// countQlog counts the events of a qlog file whose name ends in suffix.
func countQlog(t *testing.T, path, suffix string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), `"name":"`+suffix+`"`)
}

// tshark runs tshark with args and returns its output lines; skips
// without tshark.
func tshark(t *testing.T, args ...string) []string {
	t.Helper()
	bin, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed (Debian package tshark; CI installs it): decryption is checked with it")
	}
	out, err := exec.Command(bin, append([]string{"-n"}, args...)...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("tshark %q: %v\n%s", args, err, msg)
	}
	s := strings.TrimRight(string(out), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestCaptureDecrypt downloads over HTTP/3 (quic-go) and HTTP/2 (Go TCP)
// between two namespaces with both endpoints as processes, captures the
// server's and the client's veth with emu/capture and keeps both key
// logs. tshark decrypts the HTTP/3 (HTTP/2) frames of the server-side
// file with either key log; the server-side file holds exactly the
// packets the server sent (quic-go: its qlog's packet_sent events; TCP:
// the namespace's OutSegs) when the capture reports no drops; and the
// client measured small positive one-way delays for every stamp.
func TestCaptureDecrypt(t *testing.T) {
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark not installed (Debian package tshark; CI installs it): decryption is checked with it")
	}
	emutest.Exclusive(t) // saturates the CPUs for the download
	for _, proto := range []Proto{ProtoQUIC, ProtoTCP} {
		t.Run(string(proto), func(t *testing.T) {
			srvNS, cliNS, dir, cert, key := obsPair(t)
			cs, err := capture.Start(t.Context(), int(srvNS.NS), "vs", capture.MaxSnaplen, filepath.Join(dir, "server.pcapng"))
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			cc, err := capture.Start(t.Context(), int(cliNS.NS), "vc", 128, filepath.Join(dir, "client.pcapng"))
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			outSegs := tcpSegsSent(t, srvNS)

			const n = 20_000_000
			scfg := ServerConfig{Proto: proto, Listen: obsServerIP + ":443", CertFile: cert, KeyFile: key,
				KeyLogFile: filepath.Join(dir, "server.keys")}
			if proto == ProtoQUIC {
				scfg.QlogFile = filepath.Join(dir, "server.sqlog")
			}
			srv := startEmuIn(t, srvNS, ServerArgs(scfg))
			addr := srv.next(t, EventReady, 10*time.Second).Addr
			ccfg := ClientConfig{Proto: proto, URL: BytesURL(addr, n), CAFile: cert,
				KeyLogFile: filepath.Join(dir, "client.keys"), OWDLog: filepath.Join(dir, "owd.csv")}
			cl := startEmuIn(t, cliNS, ClientArgs(ccfg))
			done := cl.next(t, EventDone, 60*time.Second)
			if code := cl.wait(t, 10*time.Second); code != 0 || !done.Complete {
				t.Fatalf("client exit %d, done %+v", code, done)
			}
			srv.cmd.Process.Signal(os.Interrupt)
			if code := srv.wait(t, 10*time.Second); code != 0 {
				t.Fatalf("server exit %d", code)
			}
			sst, err := cs.Close()
			if err != nil {
				t.Fatal(err)
			}
			cst, err := cc.Close()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.0f Mbit/s; server capture %+v, client capture %+v", proto, done.GoodputMbps, sst, cst)

			checkOWD(t, ccfg.OWDLog, done.OWD, true, n, DefaultStampInterval)
			if done.OWD.P50 > 50 {
				t.Errorf("p50 one-way delay %.3f ms over a bare veth, want at most 50 ms", done.OWD.P50)
			}

			// Wireshark 4.0 does not reassemble HTTP/3 DATA frames that
			// span QUIC packets: it shows the HTTP/3 HEADERS and SETTINGS
			// frames, and the decrypted STREAM frames carrying the body.
			checks := [][2]string{{"http3.frame_type == 1", "HTTP/3 HEADERS"}, {"quic.stream.stream_id == 0", "QUIC STREAM frames of the request"}}
			if proto == ProtoTCP {
				checks = [][2]string{{"http2.type == 1", "HTTP/2 HEADERS"}, {"http2.type == 0", "HTTP/2 DATA"}}
			}
			for _, c := range checks {
				for _, keys := range []string{scfg.KeyLogFile, ccfg.KeyLogFile} {
					pkts := tshark(t, "-r", filepath.Join(dir, "server.pcapng"), "-o", "tls.keylog_file:"+keys,
						"-Y", c[0], "-T", "fields", "-e", "frame.number")
					t.Logf("with %s: %d packets with %s", filepath.Base(keys), len(pkts), c[1])
					if len(pkts) == 0 || (c[0] != "http3.frame_type == 1" && c[0] != "http2.type == 1" && len(pkts) < 100) {
						t.Errorf("with %s, tshark decrypts %d packets with %s", filepath.Base(keys), len(pkts), c[1])
					}
				}
				if n := len(tshark(t, "-r", filepath.Join(dir, "server.pcapng"), "-Y", c[0])); n != 0 {
					t.Errorf("tshark shows %d packets with %s without a key log", n, c[1])
				}
			}

			var sent int
			var inFile int
			switch proto {
			case ProtoQUIC:
				sent = countQlog(t, scfg.QlogFile, "transport:packet_sent")
				// One line per datagram, one header form per QUIC packet
				// in it (coalesced handshake packets).
				for _, l := range tshark(t, "-r", filepath.Join(dir, "server.pcapng"), "-o", "tls.keylog_file:"+scfg.KeyLogFile,
					"-Y", "ip.src=="+obsServerIP+" && quic", "-T", "fields", "-e", "quic.header_form") {
					inFile += strings.Count(l, ",") + 1
				}
			case ProtoTCP:
				sent = int(tcpSegsSent(t, srvNS) - outSegs)
				inFile = len(tshark(t, "-r", filepath.Join(dir, "server.pcapng"), "-Y", "ip.src=="+obsServerIP+" && tcp", "-T", "fields", "-e", "frame.number"))
			}
			t.Logf("server sent %d packets, its capture holds %d (kernel drops %d)", sent, inFile, sst.Dropped)
			// One QUIC packet more than the qlog in 1 of 13 clean-clone CI
			// runs (14743 captured, 14742 logged, no drop): a packet the
			// server's connection does not log, sent as it closes (quic-go
			// answers a packet for a closed connection with its saved
			// CONNECTION_CLOSE, or one for an unknown connection ID with a
			// stateless reset, neither in the qlog). The last packets the
			// capture holds say which when it happens again.
			extra := 0
			if proto == ProtoQUIC && sst.Dropped == 0 && inFile == sent+1 {
				tail := tshark(t, "-r", filepath.Join(dir, "server.pcapng"), "-o", "tls.keylog_file:"+scfg.KeyLogFile,
					"-Y", "ip.src=="+obsServerIP+" && quic", "-T", "fields", "-e", "frame.number", "-e", "frame.time_relative", "-e", "quic.header_form", "-e", "quic.frame_type")
				t.Logf("one packet more than the qlog logged; the capture's last server packets (frame, time, header form, frame types): %q", tail[max(0, len(tail)-3):])
				extra = 1
			}
			if sst.Dropped == 0 && inFile != sent+extra {
				t.Errorf("server sent %d packets, its capture holds %d and reports no drop", sent, inFile)
			}
			if sst.Dropped > 0 && (inFile > sent || sent-inFile > int(sst.Dropped)*64) {
				t.Errorf("server sent %d packets, its capture holds %d with %d (super-)packets dropped", sent, inFile, sst.Dropped)
			}
		})
	}
}

// dropInput makes the namespace drop percent % of the packets it receives
// (an nftables rule on prerouting: numgen random mod 100 < percent), until
// the namespace goes. Loss on the sender's output would not do: the
// sender's stack sees the drop (EPERM) and sends again as if nothing was
// lost.
func dropInput(t *testing.T, ns *emutest.NetNS, percent uint32) {
	t.Helper()
	c, err := nftables.New(nftables.WithNetNSFd(int(ns.NS)))
	if err != nil {
		t.Fatal(err)
	}
	tbl := c.AddTable(&nftables.Table{Name: "emutest_loss", Family: nftables.TableFamilyINet})
	policy := nftables.ChainPolicyAccept
	ch := c.AddChain(&nftables.Chain{Name: "out", Table: tbl, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookPrerouting, Priority: nftables.ChainPriorityFilter, Policy: &policy})
	c.AddRule(&nftables.Rule{Table: tbl, Chain: ch, Exprs: []expr.Any{
		&expr.Numgen{Register: 1, Modulus: 100, Type: unix.NFT_NG_RANDOM},
		&expr.Cmp{Op: expr.CmpOpLt, Register: 1, Data: binaryutil.NativeEndian.PutUint32(percent)},
		&expr.Verdict{Kind: expr.VerdictDrop},
	}})
	if err := c.Flush(); err != nil {
		t.Fatalf("nftables loss rule: %v", err)
	}
}

// TestOWDUnderLoss: with 2 % of the server's packets dropped, every stamp
// of the body still arrives and decodes (stamps are payload, and a
// retransmission carries the same bytes with the original send time), the
// server did retransmit, and the delays of retransmitted stamps show in
// the tail.
func TestOWDUnderLoss(t *testing.T) {
	emutest.Exclusive(t) // saturates the CPUs for the download
	for _, proto := range []Proto{ProtoQUIC, ProtoTCP} {
		t.Run(string(proto), func(t *testing.T) {
			srvNS, cliNS, dir, cert, key := obsPair(t)
			dropInput(t, cliNS, 2)
			retrans := emutest.SNMP(t, srvNS.Do, "Tcp", "RetransSegs")
			const n = 10_000_000
			scfg := ServerConfig{Proto: proto, Listen: obsServerIP + ":4433", CertFile: cert, KeyFile: key}
			if proto == ProtoQUIC {
				scfg.QlogFile = filepath.Join(dir, "server.sqlog")
			}
			srv := startEmuIn(t, srvNS, ServerArgs(scfg))
			addr := srv.next(t, EventReady, 10*time.Second).Addr
			ccfg := ClientConfig{Proto: proto, URL: BytesURL(addr, n), CAFile: cert, OWDLog: filepath.Join(dir, "owd.csv")}
			cl := startEmuIn(t, cliNS, ClientArgs(ccfg))
			done := cl.next(t, EventDone, 60*time.Second)
			if code := cl.wait(t, 10*time.Second); code != 0 || !done.Complete {
				t.Fatalf("client exit %d, done %+v", code, done)
			}
			if strings.Contains(cl.stderr.String(), "owd:") {
				t.Errorf("client: %s", cl.stderr.String())
			}
			srv.cmd.Process.Signal(os.Interrupt)
			if code := srv.wait(t, 10*time.Second); code != 0 {
				t.Fatalf("server exit %d", code)
			}
			checkOWD(t, ccfg.OWDLog, done.OWD, true, n, DefaultStampInterval)
			var lost int64
			switch proto {
			case ProtoQUIC:
				lost = int64(countQlog(t, scfg.QlogFile, "recovery:packet_lost"))
			case ProtoTCP:
				lost = emutest.SNMP(t, srvNS.Do, "Tcp", "RetransSegs") - retrans
			}
			if lost == 0 {
				t.Fatal("the server lost (retransmitted) nothing: the loss rule did not work")
			}
			t.Logf("%s: %.0f Mbit/s, %d packets lost or retransmitted; owd p50 %.3f ms, p99 %.3f ms, max %.3f ms",
				proto, done.GoodputMbps, lost, done.OWD.P50, done.OWD.P99, done.OWD.Max)
		})
	}
}

// TestNgtcp2GSOBatchesAreSmall: the ngtcp2 server leaves its veth in GSO
// batches of at most ngtcp2GSODatagrams datagrams, not its default 64
// (which a rate limiter on a path without PDCP proxies would have to
// release as one 64 KB packet). The capture on the server's veth sees the
// packets as the device was handed them: Received counts them, Packets
// their datagrams.
func TestNgtcp2GSOBatchesAreSmall(t *testing.T) {
	requireNgtcp2(t)
	srvNS, cliNS, dir, cert, key := obsPair(t)
	cs, err := capture.Start(t.Context(), int(srvNS.NS), "vs", 128, filepath.Join(dir, "server.pcapng"))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const n = 10_000_000
	srv := startEmuIn(t, srvNS, ServerArgs(ServerConfig{Impl: ImplNgtcp2, Proto: ProtoQUIC, Listen: obsServerIP + ":443",
		CertFile: cert, KeyFile: key, Sizes: []int64{n}}))
	addr := srv.next(t, EventReady, 10*time.Second).Addr
	cl := startEmuIn(t, cliNS, ClientArgs(ClientConfig{Impl: ImplQuicGo, Proto: ProtoQUIC, URL: BytesURL(addr, n), CAFile: cert}))
	done := cl.next(t, EventDone, 60*time.Second)
	if code := cl.wait(t, 10*time.Second); code != 0 || !done.Complete {
		t.Fatalf("client exit %d, done %+v", code, done)
	}
	srv.cmd.Process.Signal(os.Interrupt)
	srv.wait(t, 10*time.Second)
	st, err := cs.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.0f Mbit/s; server capture %+v", done.GoodputMbps, st)
	if st.Packets < n/1500 || st.Received == 0 {
		t.Fatalf("the capture holds %d datagrams in %d packets for a %d-byte download", st.Packets, st.Received, n)
	}
	if per := float64(st.Packets) / float64(st.Received); per > ngtcp2GSODatagrams {
		t.Errorf("the ngtcp2 server sent %.1f datagrams per packet (%d in %d), want at most %d", per, st.Packets, st.Received, ngtcp2GSODatagrams)
	}
}
