package endpoint

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
)

// TestProcessInNamespace runs an ngtcp2 server and a quic-go client as
// processes inside a private network namespace, as endpoints run inside a
// run's nodes (this kernel has no sch_netem, so the path is plain
// loopback): the server is found ready from its child's view of the
// namespace, the download completes with the namespace's default buffer,
// and both qlog files are complete.
func TestProcessInNamespace(t *testing.T) {
	requireNgtcp2(t)
	ns := emutest.NewNetNS(t)
	const n = 2_000_000
	dir, cert, key := testCert(t)
	srv := startEmuIn(t, ns, ServerArgs(ServerConfig{Impl: ImplNgtcp2, Proto: ProtoQUIC, Listen: "127.0.0.1:4433",
		CertFile: cert, KeyFile: key, Sizes: []int64{n}, QlogFile: qlogPath(dir, "server")}))
	addr := srv.next(t, EventReady, 10*time.Second).Addr
	self, _ := os.Readlink("/proc/self/ns/net")
	if theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", srv.cmd.Process.Pid)); err != nil || theirs == self {
		t.Fatalf("server runs in namespace %q (%v), the test in %q", theirs, err, self)
	}
	if addr != "127.0.0.1:4433" {
		t.Errorf("ready at %s", addr)
	}
	ccfg := ClientConfig{Proto: ProtoQUIC, URL: BytesURL(addr, n), CAFile: cert, QlogFile: qlogPath(dir, "client")}
	cl := startEmuIn(t, ns, ClientArgs(ccfg))
	done := cl.next(t, EventDone, 30*time.Second)
	if code := cl.wait(t, 5*time.Second); code != 0 || !done.Complete || done.Bytes != n {
		t.Fatalf("client exit %d, done %+v", code, done)
	}
	if done.RcvBufBytes != freshUDPRcvBuf(t) {
		t.Errorf("rcvbuf %d in the namespace, want the kernel default %d", done.RcvBufBytes, freshUDPRcvBuf(t))
	}
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 10*time.Second); code != 0 {
		t.Errorf("server exit %d", code)
	}
	checkQlog(t, qlogPath(dir, "server"), "server")
	checkQlog(t, ccfg.QlogFile, "client")
	t.Logf("%d bytes in %.3f s inside the namespace", done.Bytes, done.Seconds)
}
