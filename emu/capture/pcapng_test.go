package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"time"
)

// block is one pcapng block as readBlocks found it.
type block struct {
	typ  uint32
	body []byte // between the length fields
}

// readBlocks splits a little-endian pcapng file into blocks, checking
// that each block's two length fields agree and are multiples of 4.
func readBlocks(data []byte) ([]block, error) {
	var bs []block
	for len(data) > 0 {
		if len(data) < 12 {
			return nil, fmt.Errorf("%d trailing bytes", len(data))
		}
		typ, n := le.Uint32(data), int(le.Uint32(data[4:]))
		if n < 12 || n%4 != 0 || n > len(data) || int(le.Uint32(data[n-4:])) != n {
			return nil, fmt.Errorf("block %#x: bad length %d", typ, n)
		}
		bs = append(bs, block{typ, data[8 : n-4]})
		data = data[n:]
	}
	return bs, nil
}

// options parses an option list into code → value.
func options(b []byte) (map[uint16][]byte, error) {
	opts := map[uint16][]byte{}
	for len(b) >= 4 {
		code, n := le.Uint16(b), int(le.Uint16(b[2:]))
		if code == optEnd {
			return opts, nil
		}
		if 4+n > len(b) {
			return nil, fmt.Errorf("option %d: length %d beyond the block", code, n)
		}
		opts[code] = b[4 : 4+n]
		b = b[4+n+pad4(n):]
	}
	return nil, fmt.Errorf("no opt_endofopt")
}

func TestNgWriter(t *testing.T) {
	var buf bytes.Buffer
	nw := newNgWriter(&buf, "va", linkTypeEthernet, 1500)
	ts := time.Unix(1700000000, 123456789)
	nw.writePacket(ts, dirOutbound, 100, []byte("headers"), []byte("payload!"))
	nw.writePacket(ts.Add(time.Nanosecond), dirInbound|receptionUnicast, 4, []byte{1, 2, 3, 4}, nil)
	nw.statistics(ts, ts.Add(time.Second), Stats{Packets: 2, Received: 3, Dropped: 1})
	if err := nw.flush(); err != nil {
		t.Fatal(err)
	}
	bs, err := readBlocks(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 5 || bs[0].typ != blockSHB || bs[1].typ != blockIDB || bs[2].typ != blockEPB || bs[3].typ != blockEPB || bs[4].typ != blockISB {
		t.Fatalf("blocks %+v", bs)
	}
	if le.Uint32(bs[0].body) != byteOrderMagic || le.Uint16(bs[0].body[4:]) != 1 {
		t.Error("section header: byte order or version")
	}
	idb := bs[1].body
	opts, err := options(idb[8:])
	if err != nil || le.Uint16(idb) != linkTypeEthernet || le.Uint32(idb[4:]) != 1500 ||
		string(opts[optIfName]) != "va" || !bytes.Equal(opts[optIfTsresol], []byte{9}) {
		t.Errorf("interface block %x, options %v, %v", idb, opts, err)
	}
	for i, want := range []struct {
		ns    uint64
		data  string
		orig  uint32
		flags uint32
	}{{uint64(ts.UnixNano()), "headerspayload!", 100, dirOutbound}, {uint64(ts.UnixNano()) + 1, "\x01\x02\x03\x04", 4, 5}} {
		epb := bs[2+i].body
		ns := uint64(le.Uint32(epb[4:]))<<32 | uint64(le.Uint32(epb[8:]))
		capLen := int(le.Uint32(epb[12:]))
		data := epb[20 : 20+capLen]
		opts, err := options(epb[20+capLen+pad4(capLen):])
		if err != nil || ns != want.ns || string(data) != want.data || le.Uint32(epb[16:]) != want.orig || le.Uint32(opts[optEPBFlags]) != want.flags {
			t.Errorf("packet %d: ts %d data %q orig %d opts %v %v; want %+v", i, ns, data, le.Uint32(epb[16:]), opts, err, want)
		}
	}
	isb, err := options(bs[4].body[12:])
	if err != nil || binary.LittleEndian.Uint64(isb[optISBIfRecv]) != 3 || le.Uint64(isb[optISBIfDrop]) != 1 || le.Uint64(isb[optISBUsrDlv]) != 2 {
		t.Errorf("statistics %v %v", isb, err)
	}
}

func TestWritePacketAllocs(t *testing.T) {
	nw := newNgWriter(discard{}, "va", linkTypeEthernet, 1500)
	head, tail := make([]byte, 54), make([]byte, 1448)
	ts := time.Now()
	if n := testing.AllocsPerRun(1000, func() { nw.writePacket(ts, dirOutbound, 1502, head, tail) }); n != 0 {
		t.Errorf("%.1f allocations per packet", n)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func BenchmarkWritePacket(b *testing.B) {
	nw := newNgWriter(discard{}, "va", linkTypeEthernet, 1500)
	head, tail := make([]byte, 54), make([]byte, 1448)
	ts := time.Now()
	b.SetBytes(1502)
	b.ReportAllocs()
	for b.Loop() {
		nw.writePacket(ts, dirOutbound, 1502, head, tail)
	}
}
