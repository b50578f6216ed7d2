package endpoint

import (
	"net/url"
	"reflect"
	"slices"
	"testing"
)

// TestAckThreshArgs: the ACK threshold travels from the run to `emu
// endpoint client` and on to gtlsclient as --ack-thresh; 0 leaves
// gtlsclient's default and passes nothing.
func TestAckThreshArgs(t *testing.T) {
	dir := t.TempDir()
	cert, _, err := WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	ccfg := ClientConfig{Impl: ImplNgtcp2, Proto: ProtoQUIC, URL: "https://10.1.2.3:4433/bytes/1000", CAFile: cert, Size: 1000, AckThresh: 20}
	args := ClientArgs(ccfg)
	if !slices.Contains(args, "--ack-thresh=20") {
		t.Fatalf("ClientArgs: %q", args)
	}
	var cf ClientFlags
	parseArgs(t, "client", cf.Bind, args)
	got, err := cf.Config()
	if err != nil {
		t.Fatal(err)
	}
	if got.AckThresh != 20 {
		t.Errorf("through flags: ack threshold %d", got.AckThresh)
	}
	u, _ := url.Parse(ccfg.URL)
	if a := ngtcp2ClientArgs(&got, u, dir); !slices.Contains(a, "--ack-thresh=20") {
		t.Errorf("gtlsclient args: %q", a)
	}
	ccfg.AckThresh = 0
	if a := ngtcp2ClientArgs(&ccfg, u, dir); slices.ContainsFunc(a, func(s string) bool { return len(s) > 12 && s[:12] == "--ack-thresh" }) {
		t.Errorf("gtlsclient args without a threshold: %q", a)
	}
	if !reflect.DeepEqual(ClientArgs(ccfg), slices.DeleteFunc(slices.Clone(args), func(s string) bool { return s == "--ack-thresh=20" })) {
		t.Errorf("ClientArgs without a threshold: %q", ClientArgs(ccfg))
	}
}

// TestAckThreshCheck: only the ngtcp2 client takes a threshold, and one
// in 1..MaxAckThresh.
func TestAckThreshCheck(t *testing.T) {
	dir := t.TempDir()
	cert, _, err := WriteSelfSigned(dir)
	if err != nil {
		t.Fatal(err)
	}
	ok := ClientConfig{Impl: ImplNgtcp2, Proto: ProtoQUIC, URL: "https://127.0.0.1:4433/bytes/10", CAFile: cert, AckThresh: 20}
	checkEdits(t, ok, []checkCase[ClientConfig]{
		{"quic-go", func(c *ClientConfig) { c.Impl = ImplQuicGo }, "only the ngtcp2 client takes an ACK threshold, not quic-go"},
		{"tcp", func(c *ClientConfig) { c.Impl, c.Proto = ImplGo, ProtoTCP }, "only the ngtcp2 client takes an ACK threshold, not go"},
		{"negative", func(c *ClientConfig) { c.AckThresh = -1 }, "ack-thresh -1: want 1 to 1000"},
		{"absurd", func(c *ClientConfig) { c.AckThresh = 5000 }, "ack-thresh 5000: want 1 to 1000"},
	})
}
