package pdcp

import (
	"bytes"
	"errors"
	"testing"
)

// TestSenderNumbersAndWraps: COUNTs run on past the SN space, the batch
// scheduler alternates the links every 2 PDUs, and a PDU built as the
// batch path builds it (the header written in the headroom in front of
// the packet) reads back as that SN and the packet byte for byte.
func TestSenderNumbersAndWraps(t *testing.T) {
	s, err := NewSender(SNBits12, mustScheduler(t, SchedulerConfig{Batch: 2}))
	if err != nil {
		t.Fatal(err)
	}
	pkt := ipv4Packet(protoUDP, 0, []byte("data"))
	hl := HeaderLen(SNBits12)
	buf := make([]byte, hl+len(pkt))
	copy(buf[hl:], pkt)
	for count := uint64(0); count < 4100; count++ {
		sn, to := s.Assign(len(buf), 0)
		PutHeader(buf, sn, SNBits12)
		want := Link0
		if count%2 == 1 {
			want = Link1
		}
		if to != want {
			t.Fatalf("COUNT %d on %v, want %v", count, to, want)
		}
		got, back, err := ParseHeader(buf, SNBits12)
		if err != nil || sn != uint32(count%4096) || got != sn || !bytes.Equal(back, pkt) {
			t.Fatalf("COUNT %d: SN %d, read back %d, %v", count, sn, got, err)
		}
	}
	if c := s.Counters; c.PDUs != 4100 || c.Link != [2]uint64{2050, 2050} || c.Bytes[0] != 2050*uint64(len(pkt)+hl) {
		t.Errorf("counters %+v", c)
	}
	if s.Next() != 4100 {
		t.Errorf("TX_NEXT %d, want 4100", s.Next())
	}
}

// TestSenderDuplicates: with duplication each PDU takes one COUNT and both
// links, and counts on both.
func TestSenderDuplicates(t *testing.T) {
	s, _ := NewSender(SNBits18, mustScheduler(t, SchedulerConfig{Kind: KindDuplicate}))
	pkt := ipv6Packet(protoTCP, false, []byte("x"))
	pdu := make([]byte, HeaderLen(SNBits18)+len(pkt))
	copy(pdu[HeaderLen(SNBits18):], pkt)
	for want := range uint32(2) {
		sn, to := s.Assign(len(pdu), 0)
		PutHeader(pdu, sn, SNBits18)
		if got, _, err := ParseHeader(pdu, SNBits18); err != nil || sn != want || got != want || to != BothLinks {
			t.Fatalf("PDU %d: SN %d (read %d) on %v, %v", want, sn, got, to, err)
		}
	}
	if s.Next() != 2 {
		t.Errorf("TX_NEXT %d, want 2", s.Next())
	}
	n := uint64(len(pdu))
	if c := s.Counters; c.PDUs != 2 || c.Link != [2]uint64{2, 2} || c.Bytes != [2]uint64{2 * n, 2 * n} {
		t.Errorf("counters %+v", c)
	}
}

func TestNewSenderErrors(t *testing.T) {
	if _, err := NewSender(14, mustScheduler(t, SchedulerConfig{})); !errors.Is(err, ErrSNBits) {
		t.Errorf("14 bits: %v", err)
	}
	if _, err := NewSender(12, nil); err == nil {
		t.Error("nil scheduler accepted")
	}
}
