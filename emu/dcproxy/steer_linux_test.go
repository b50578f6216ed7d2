package dcproxy

import (
	"encoding/binary"
	"testing"
)

func ipv4(proto byte, src, dst uint16, frag uint16) []byte {
	p := make([]byte, 28)
	p[0], p[9] = 0x45, proto
	binary.BigEndian.PutUint16(p[6:], frag)
	binary.BigEndian.PutUint16(p[20:], src)
	binary.BigEndian.PutUint16(p[22:], dst)
	return p
}

func TestClassifier(t *testing.T) {
	var c classifier
	if err := c.set([]SteerRule{{Port: 4434}, {Port: 8445}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pkt  []byte
		want int
	}{
		{ipv4(17, 4434, 40000, 0), 1},                  // a QUIC or cbr flow's downlink
		{ipv4(6, 51000, 8445, 0), 2},                   // a TCP flow's uplink
		{ipv4(6, 8443, 51000, 0), 0},                   // another flow
		{ipv4(1, 4434, 4434, 0), 0},                    // not TCP or UDP
		{ipv4(17, 4434, 1, 0x0010), 0},                 // a later fragment
		{ipv4(17, 4434, 1, 0)[:22], 0},                 // cut short
		{append([]byte{0x60}, make([]byte, 40)...), 0}, // IPv6
	} {
		if got := c.entity(tc.pkt); got != tc.want {
			t.Errorf("% x: entity %d, want %d", tc.pkt[:min(len(tc.pkt), 24)], got, tc.want)
		}
	}
	pkt := ipv4(6, 51000, 8445, 0)
	if a := testing.AllocsPerRun(1000, func() { c.entity(pkt) }); a != 0 {
		t.Errorf("entity allocates %.0f times", a)
	}
	var none classifier
	if none.entity(pkt) != 0 {
		t.Error("no rules: not entity 0")
	}
	if err := c.set(make([]SteerRule, MaxSteered+1)); err == nil {
		t.Error("too many rules accepted")
	}
}
