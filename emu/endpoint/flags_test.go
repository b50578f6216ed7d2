package endpoint

import (
	"reflect"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestArgsRoundTrip parses what ServerArgs and ClientArgs build with
// ServerFlags and ClientFlags, as `emu endpoint` does: the run and the
// endpoint process must agree on every field.
func TestArgsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cert, key, err := WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	scfg := ServerConfig{Impl: ImplNgtcp2, Proto: ProtoQUIC, Listen: "10.1.2.3:4433",
		CertFile: cert, KeyFile: key, CC: "bbr", QlogFile: dir + "/s.sqlog", Root: dir, Sizes: []int64{1, 100_000_000},
		KeyLogFile: dir + "/s.keys", StampInterval: 4096, NotSentLowat: NoLowat}
	var sf ServerFlags
	parseArgs(t, "server", sf.Bind, ServerArgs(scfg))
	got, err := sf.Config()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, scfg) {
		t.Errorf("server config through flags:\n%+v\nwant\n%+v", got, scfg)
	}
	tcfg := ServerConfig{Impl: ImplGo, Proto: ProtoTCP, Listen: "10.1.2.3:443",
		CertFile: cert, KeyFile: key, MPTCP: true, TCPInfoLog: dir + "/f1-tcpinfo.csv",
		TCPInfoInterval: 5 * time.Millisecond, T0: time.Unix(0, 1700000000123456789)}
	var tf ServerFlags
	parseArgs(t, "server", tf.Bind, ServerArgs(tcfg))
	if got, err := tf.Config(); err != nil || !reflect.DeepEqual(got, tcfg) {
		t.Errorf("TCP server config through flags (%v):\n%+v\nwant\n%+v", err, got, tcfg)
	}

	ccfg := ClientConfig{Impl: ImplGo, Proto: ProtoTCP, URL: "https://10.1.2.3:4433/bytes/1000",
		CAFile: cert, Size: 1000, Duration: 3 * time.Minute, CC: "cubic", RcvBuf: RcvBufLarge,
		QlogFile: dir + "/c.sqlog", RecvLog: dir + "/r.csv", OWDLog: dir + "/owd.csv", KeyLogFile: dir + "/c.keys", T0: time.Unix(0, 1700000000123456789),
		Interval: 50 * time.Millisecond, HandshakeTimeout: 3 * time.Second, IdleTimeout: 7 * time.Second, MPTCP: true}
	var cf ClientFlags
	parseArgs(t, "client", cf.Bind, ClientArgs(ccfg))
	gotc, err := cf.Config()
	if err != nil {
		t.Fatal(err)
	}
	if !gotc.T0.Equal(ccfg.T0) {
		t.Errorf("t0 %v, want %v", gotc.T0, ccfg.T0)
	}
	gotc.T0 = ccfg.T0
	if !reflect.DeepEqual(gotc, ccfg) {
		t.Errorf("client config through flags:\n%+v\nwant\n%+v", gotc, ccfg)
	}
}

// parseArgs parses a command line that ServerArgs or ClientArgs
// built (`emu endpoint server|client` and its flags) into the flags that
// bind registers, as the command does.
func parseArgs(t *testing.T, name string, bind func(*pflag.FlagSet), args []string) {
	t.Helper()
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	bind(fs)
	if err := fs.Parse(args[2:]); err != nil {
		t.Fatalf("%s flags %q: %v", name, args, err)
	}
}
