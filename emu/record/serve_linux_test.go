package record

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dc-emu/emu/internal/emutest"
	"github.com/dc-emu/emu/topo"
)

// scratch is a namespace of the test's own with its loopback up.
func scratch(t *testing.T) *topo.NodeNS {
	t.Helper()
	emutest.RequireRoot(t)
	ns, err := topo.NewScratch()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Close)
	lo, err := ns.Handle.LinkByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Handle.LinkSetUp(lo); err != nil {
		t.Fatal(err)
	}
	return ns
}

// serveIn runs a far end on the namespace's loopback until the test ends
// and returns its address.
func serveIn(t *testing.T, ns *topo.NodeNS) string {
	t.Helper()
	var s *Server
	if err := ns.Do(func() (err error) {
		s, err = Listen("127.0.0.1:0", nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return s.Addr().String()
}

// TestServeRefusesWhatIsNotARecording: the far end answers anything but
// a recording request of its version with an error and closes.
func TestServeRefusesWhatIsNotARecording(t *testing.T) {
	ns := scratch(t)
	addr := serveIn(t, ns)
	for _, c := range []struct{ send, want string }{
		{"GET / HTTP/1.0\r\n\r\n", "not a recording request"},
		{`{"recording":"emu record","version":99,"session":1,"duration_ms":1000,"packet_bytes":1500,"max_rate_bps":1}` + "\n", "version 99"},
		{`{"recording":"emu record","version":1,"session":1,"duration_ms":0,"packet_bytes":1500,"max_rate_bps":1}` + "\n", "duration"},
		{`{"recording":"emu record","version":1,"session":1,"duration_ms":1000,"packet_bytes":20,"max_rate_bps":1}` + "\n", "packet size"},
	} {
		var reply string
		if err := ns.Do(func() error {
			c2, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				return err
			}
			defer c2.Close()
			c2.SetDeadline(time.Now().Add(5 * time.Second))
			c2.Write([]byte(c.send))
			reply, _ = bufio.NewReader(c2).ReadString('\n')
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(reply, `"error"`) || !strings.Contains(reply, c.want) {
			t.Errorf("sent %q: reply %q, want an error naming %q", c.send, reply, c.want)
		}
	}
}

// TestRecordUnreachable: a far end that does not answer is a clear
// error, and nothing is recorded.
func TestRecordUnreachable(t *testing.T) {
	ns := scratch(t)
	var err error
	ns.Do(func() error {
		_, err = Record(context.Background(), Options{To: "127.0.0.1:9", Duration: time.Second})
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), "emu record serve") {
		t.Fatalf("err %v, want one saying the far end is unreachable", err)
	}
}

// TestRecordInterrupted: a recording cut short keeps what was recorded,
// marked interrupted; a path faster than --max-rate is said to be.
func TestRecordInterrupted(t *testing.T) {
	emutest.Exclusive(t)
	ns := scratch(t)
	addr := serveIn(t, ns)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(Warmup+2500*time.Millisecond, cancel)
	var rec *Recording
	if err := ns.Do(func() (err error) {
		rec, err = Record(ctx, Options{To: addr, Duration: 20 * time.Second, MaxRate: 20e6})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !rec.Interrupted || rec.Recorded < time.Second || rec.Recorded > 10*time.Second {
		t.Fatalf("interrupted %v after %v, want true after about 2 s", rec.Interrupted, rec.Recorded)
	}
	prefix := filepath.Join(t.TempDir(), "rec")
	files, err := WriteFiles(rec, prefix, []string{"emu", "record"})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(prefix + SuffixProvenance)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "INTERRUPTED") {
		t.Errorf("provenance does not say the recording was interrupted:\n%s", page)
	}
	for _, suffix := range []string{SuffixDown, SuffixUp, SuffixDelay, SuffixLoss, SuffixCSV, SuffixProbes, SuffixJSON} {
		if st, err := os.Stat(prefix + suffix); err != nil || st.Size() == 0 {
			t.Errorf("%s%s: %v", prefix, suffix, err)
		}
	}
	st := files[0].Trace.Stats()
	if st.Down.Mean < 15 || st.Down.Mean > 21 {
		t.Errorf("loopback held at 20 Mbit/s recorded as %.1f Mbit/s", st.Down.Mean)
	}
	if w := strings.Join(files[0].Warnings, "\n"); !strings.Contains(w, "maximum rate") {
		t.Errorf("warnings %q do not say the path may carry more than --max-rate", w)
	}
}
