package pdcp

import (
	"encoding/binary"
	"testing"
)

func portPacket(proto byte, src, dst uint16, frag uint16) []byte {
	p := make([]byte, 28)
	p[0], p[9] = 0x45, proto
	binary.BigEndian.PutUint16(p[6:], frag)
	binary.BigEndian.PutUint16(p[20:], src)
	binary.BigEndian.PutUint16(p[22:], dst)
	return p
}

func TestClassifier(t *testing.T) {
	var c Classifier
	if err := c.Set([]SteerRule{{Port: 4434}, {Port: 8445}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pkt  []byte
		want int
	}{
		{portPacket(17, 4434, 40000, 0), 1},            // a QUIC or cbr flow's downlink
		{portPacket(6, 51000, 8445, 0), 2},             // a TCP flow's uplink
		{portPacket(6, 8443, 51000, 0), 0},             // another flow
		{portPacket(1, 4434, 4434, 0), 0},              // not TCP or UDP
		{portPacket(17, 4434, 1, 0x0010), 0},           // a later fragment
		{portPacket(17, 4434, 1, 0)[:22], 0},           // cut short
		{append([]byte{0x60}, make([]byte, 40)...), 0}, // IPv6
	} {
		if got := c.Entity(tc.pkt); got != tc.want {
			t.Errorf("% x: entity %d, want %d", tc.pkt[:min(len(tc.pkt), 24)], got, tc.want)
		}
	}
	pkt := portPacket(6, 51000, 8445, 0)
	if a := testing.AllocsPerRun(1000, func() { c.Entity(pkt) }); a != 0 {
		t.Errorf("entity allocates %.0f times", a)
	}
	var none Classifier
	if none.Entity(pkt) != 0 {
		t.Error("no rules: not entity 0")
	}
	if err := c.Set(make([]SteerRule, MaxSteered+1)); err == nil {
		t.Error("too many rules accepted")
	}
}
