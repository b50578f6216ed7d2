package endpoint

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestServerArgs(t *testing.T) {
	got := ServerArgs(ServerConfig{Impl: ImplNgtcp2, Proto: ProtoQUIC, Listen: "10.0.0.1:4433",
		CertFile: "/r/cert.pem", KeyFile: "/r/key.pem", CC: "bbr", QlogFile: "/r/q/f-server.sqlog", Sizes: []int64{100, 5},
		KeyLogFile: "/r/k/server.keys", StampInterval: NoStamps, NotSentLowat: 4096})
	want := []string{"endpoint", "server", "--impl=ngtcp2", "--proto=quic", "--listen=10.0.0.1:4433",
		"--cert=/r/cert.pem", "--key=/r/key.pem", "--cc=bbr", "--qlog=/r/q/f-server.sqlog", "--keylog=/r/k/server.keys",
		"--stamp-interval=-1", "--notsent-lowat=4096", "--sizes=100,5"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ServerArgs =\n%q\nwant\n%q", got, want)
	}
}

func TestClientArgs(t *testing.T) {
	got := ClientArgs(ClientConfig{Impl: ImplQuicGo, Proto: ProtoQUIC, URL: "https://10.0.0.1:4433/bytes/1099511627776",
		CAFile: "/r/cert.pem", Duration: 180 * time.Second, RcvBuf: RcvBufLarge, QlogFile: "/r/q/c.sqlog",
		RecvLog: "/r/c.csv", OWDLog: "/r/owd.csv", KeyLogFile: "/r/c.keys", T0: time.Unix(0, 1700000000123456789), Interval: 100 * time.Millisecond,
		HandshakeTimeout: 10 * time.Second, IdleTimeout: 5 * time.Second})
	want := []string{"endpoint", "client", "--impl=quic-go", "--proto=quic", "--url=https://10.0.0.1:4433/bytes/1099511627776",
		"--ca=/r/cert.pem", "--duration=3m0s", "--rcvbuf=large", "--qlog=/r/q/c.sqlog", "--recv-log=/r/c.csv", "--owd-log=/r/owd.csv", "--keylog=/r/c.keys",
		"--t0=1700000000123456789", "--interval=100ms", "--handshake-timeout=10s", "--idle-timeout=5s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ClientArgs =\n%q\nwant\n%q", got, want)
	}
}

func TestServerArgsTCPInfoMPTCP(t *testing.T) {
	got := ServerArgs(ServerConfig{Proto: ProtoTCP, Listen: "10.0.0.1:443", CertFile: "c", KeyFile: "k", MPTCP: true,
		TCPInfoLog: "/r/f1-tcpinfo.csv", TCPInfoInterval: 5 * time.Millisecond, T0: time.Unix(0, 1700000000123456789)})
	want := []string{"endpoint", "server", "--proto=tcp", "--listen=10.0.0.1:443", "--cert=c", "--key=k",
		"--mptcp", "--tcpinfo-log=/r/f1-tcpinfo.csv", "--tcpinfo-interval=5ms", "--t0=1700000000123456789"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ServerArgs =\n%q\nwant\n%q", got, want)
	}
	if c := ClientArgs(ClientConfig{Proto: ProtoTCP, URL: "https://10.0.0.1:443/bytes/1", CAFile: "c", MPTCP: true}); !slices.Contains(c, "--mptcp") {
		t.Errorf("ClientArgs without --mptcp: %q", c)
	}
}

func TestClientArgsWork(t *testing.T) {
	got := ClientArgs(ClientConfig{Proto: ProtoQUIC, URL: "https://10.0.0.1:4433/bytes/0", CAFile: "c",
		Work: Workload{Kind: KindObjects, Objects: "500kB,1MB", Arrivals: "poisson:1s", Seed: 9, Count: 4, NewConns: true, Resume: "0rtt", KindLog: "/r/o.csv"}})
	want := []string{"endpoint", "client", "--proto=quic", "--url=https://10.0.0.1:4433/bytes/0", "--ca=c",
		"--kind=objects", "--objects=500kB,1MB", "--arrivals=poisson:1s", "--seed=9", "--count=4", "--new-conns", "--resume=0rtt", "--kind-log=/r/o.csv"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ClientArgs =\n%q\nwant\n%q", got, want)
	}
	got = ClientArgs(ClientConfig{Proto: ProtoUDP, URL: "udp://10.0.0.1:4433/", Work: Workload{Kind: KindCBR, Up: true, Packet: 160, Every: 20 * time.Millisecond}})
	if !slices.Contains(got, "--up") || !slices.Contains(got, "--packet=160") || !slices.Contains(got, "--every=20ms") {
		t.Errorf("cbr args %q", got)
	}
	if got := ClientArgs(ClientConfig{Proto: ProtoTCP, URL: "https://a:1/bytes/1", Work: Workload{Kind: KindBulk}}); slices.Contains(got, "--kind=bulk") {
		t.Errorf("a download names its kind: %q", got)
	}
	srv := ServerArgs(ServerConfig{Proto: ProtoUDP, Listen: "10.0.0.1:4433", Work: ServerWork{KindLog: "/r/s.cbr.csv", RecvLog: "/r/s.csv"}})
	if !slices.Contains(srv, "--kind-log=/r/s.cbr.csv") || !slices.Contains(srv, "--recv-log=/r/s.csv") {
		t.Errorf("server args %q", srv)
	}
}
