package mib

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGroup reads a group from the two-line format, negative values
// included (Tcp's MaxConn is -1), and refuses a group that is not there.
func TestGroup(t *testing.T) {
	p := filepath.Join(t.TempDir(), "snmp")
	text := "Tcp: RtoAlgorithm MaxConn InSegs\nTcp: 1 -1 42\nUdp: InDatagrams RcvbufErrors\nUdp: 7 3\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := Counter(p, "Udp", "RcvbufErrors"); err != nil || v != 3 {
		t.Errorf("Udp RcvbufErrors = %d, %v; want 3", v, err)
	}
	if v, err := Counter(p, "Tcp", "MaxConn"); err != nil || v != -1 {
		t.Errorf("Tcp MaxConn = %d, %v; want -1", v, err)
	}
	if _, err := Counter(p, "Udp", "NoSuch"); err == nil {
		t.Error("a missing counter read without error")
	}
	if _, err := Group(p, "MPTcpExt"); err == nil {
		t.Error("a missing group read without error")
	}
}

// FuzzGroup: any file content is read without a panic.
func FuzzGroup(f *testing.F) {
	f.Add("Udp: A B\nUdp: 1 2\n")
	f.Add("Udp: A\nUdp:\n")
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(t.TempDir(), "snmp")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		Group(p, "Udp")
	})
}
