package pdcp

import (
	"bytes"
	"errors"
	"testing"
)

func TestSenderNumbersAndWraps(t *testing.T) {
	s, err := NewSender(SNBits12, mustScheduler(t, SchedulerConfig{Batch: 2}))
	if err != nil {
		t.Fatal(err)
	}
	pkt := ipv4Packet(protoUDP, 0, []byte("data"))
	buf := make([]byte, 0, 128)
	for count := uint64(0); count < 4100; count++ {
		pdu, to, err := s.Send(buf, pkt, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := Link0
		if count%2 == 1 {
			want = Link1
		}
		if to != want {
			t.Fatalf("COUNT %d on %v, want %v", count, to, want)
		}
		sn, back, err := Decap(pdu, SNBits12)
		if err != nil || sn != uint32(count%4096) || !bytes.Equal(back, pkt) {
			t.Fatalf("COUNT %d: SN %d, %v", count, sn, err)
		}
	}
	if c := s.Counters; c.PDUs != 4100 || c.Link != [2]uint64{2050, 2050} || c.Bytes[0] != 2050*uint64(len(pkt)+3) {
		t.Errorf("counters %+v", c)
	}
}

func TestSenderPassesForeignPackets(t *testing.T) {
	s, _ := NewSender(SNBits18, mustScheduler(t, SchedulerConfig{Kind: KindDuplicate}))
	pkt := ipv6Packet(protoTCP, false, []byte("x"))
	s.Send(nil, pkt, 0) // COUNT 0
	arp := []byte{0x00, 0x01, 0x08, 0x00}
	out, to, err := s.Send(make([]byte, 0, 64), arp, 0)
	if !errors.Is(err, ErrNotIP) || to != Link0 || !bytes.Equal(out, arp) {
		t.Fatalf("non-IP: %x %v %v; want it unchanged on link 0 with ErrNotIP", out, to, err)
	}
	if s.Next() != 1 {
		t.Errorf("a refused packet used a COUNT: next %d", s.Next())
	}
	pdu, to, err := s.Send(nil, pkt, 0)
	if sn, _, _ := Decap(pdu, SNBits18); err != nil || sn != 1 || to != BothLinks {
		t.Fatalf("next PDU: SN %d on %v, %v", sn, to, err)
	}
	if c := s.Counters; c.Passed != 1 || c.PDUs != 2 || c.Link != [2]uint64{2, 2} {
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
