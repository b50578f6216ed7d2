package nfq

import (
	"bytes"
	"testing"
	"time"
)

// packetMsg builds a kernel packet message the way nfnetlink_queue does.
func packetMsg(id uint32, mark uint32, capLen uint32, payload []byte) []byte {
	b, start := appendHeader(nil, msgPacket, 0, 0, 7)
	hdr := be.AppendUint32(nil, id)
	hdr = be.AppendUint16(hdr, 0x0800)
	hdr = append(hdr, 0) // hook: prerouting
	b = appendAttr(b, attrPacketHdr, hdr)
	b = appendAttrU32(b, attrInDev, 3)
	if mark != 0 {
		b = appendAttrU32(b, attrMark, mark)
	}
	ts := be.AppendUint64(nil, 1700000000)
	ts = be.AppendUint64(ts, 123456)
	b = appendAttr(b, attrTimestamp, ts)
	if capLen != 0 {
		b = appendAttrU32(b, attrCapLen, capLen)
	}
	b = appendAttrU32(b, attrSkbInfo, uint32(FlagGSO))
	if payload != nil {
		b = appendAttr(b, attrPayload, payload)
	}
	return finish(b, start)
}

func TestParsePacket(t *testing.T) {
	payload := []byte("0123456789abcdefghij-ip-header-and-more")
	for _, tc := range []struct {
		name    string
		msg     []byte
		wantLen uint32
		payload []byte
	}{
		{"meta", packetMsg(42, 0, 0, nil), 0, nil},
		{"whole copy", packetMsg(42, 7, 0, payload), uint32(len(payload)), payload},
		{"truncated copy", packetMsg(42, 7, 64000, payload[:20]), 64000, payload[:20]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p Packet
			kind, _, _, err := parseMsg(tc.msg, &p)
			if err != nil || kind != kindPacket {
				t.Fatalf("kind %v err %v", kind, err)
			}
			if p.ID != 42 || p.HwProto != 0x0800 || p.InDev != 3 || p.Len != tc.wantLen || p.Flags != FlagGSO {
				t.Errorf("parsed %+v", p)
			}
			if !bytes.Equal(p.Payload, tc.payload) {
				t.Errorf("payload %q, want %q", p.Payload, tc.payload)
			}
			if want := time.Unix(1700000000, 123456000); !p.Time.Equal(want) {
				t.Errorf("time %v, want %v", p.Time, want)
			}
		})
	}
}

func TestParseError(t *testing.T) {
	// NLMSG_ERROR: header, errno (negative), then the header of the message
	// it answers (NETLINK_CAP_ACK: no body).
	orig, _ := appendHeader(nil, msgVerdict, nlmFRequest, 99, 1)
	orig = finish(orig, 0)
	b := ne.AppendUint32(nil, uint32(nlmsgHdrLen+4+len(orig)))
	b = ne.AppendUint16(b, nlmsgError)
	b = ne.AppendUint16(b, 0)
	b = ne.AppendUint32(b, 99)
	b = ne.AppendUint32(b, 0)
	b = ne.AppendUint32(b, uint32(0xfffffffe)) // -ENOENT
	b = append(b, orig...)
	var p Packet
	kind, errno, seq, err := parseMsg(b, &p)
	if err != nil || kind != kindError || errno != 2 || seq != 99 {
		t.Errorf("kind %v errno %d seq %d err %v; want error ENOENT for seq 99", kind, errno, seq, err)
	}
}

func TestVerdictEncoding(t *testing.T) {
	b := appendVerdict(nil, msgVerdictBatch, 5, 1000, verdictAccept, true, 0x2a, nil)
	if len(b) != verdictSize(true, nil) {
		t.Fatalf("size %d, verdictSize %d", len(b), verdictSize(true, nil))
	}
	if ne.Uint32(b) != uint32(len(b)) || ne.Uint16(b[4:]) != msgVerdictBatch || be.Uint16(b[18:]) != 5 {
		t.Errorf("header % x", b[:20])
	}
	// NFQA_VERDICT_HDR {verdict, id} then NFQA_MARK, big-endian values.
	want := []byte{12, 0, attrVerdictHdr, 0, 0, 0, 0, 1, 0, 0, 0x03, 0xe8, 8, 0, attrMark, 0, 0, 0, 0, 0x2a}
	if !bytes.Equal(b[20:], want) {
		t.Errorf("attributes % x, want % x", b[20:], want)
	}
	p := appendVerdict(nil, msgVerdict, 5, 1, verdictAccept, true, 1, []byte{1, 2, 3, 4, 5})
	if len(p) != verdictSize(true, []byte{1, 2, 3, 4, 5}) || len(p)%4 != 0 {
		t.Errorf("payload verdict length %d", len(p))
	}
}

func TestParseProcStats(t *testing.T) {
	text := []byte("    0  12345     0 2 65531     0     0        0  1\n" +
		"    1  -4005     7 1     0    12     3     1234  1\n")
	var st Stats
	if err := parseProcStats(text, 1, &st); err != nil {
		t.Fatal(err)
	}
	if st.Held != 7 || st.QueueDropped != 12 || st.UserDropped != 3 || st.IDSequence != 1234 {
		t.Errorf("parsed %+v", st)
	}
	if err := parseProcStats(text, 2, &st); err == nil {
		t.Error("queue 2 is not listed, want an error")
	}
}

func FuzzParseMsg(f *testing.F) {
	f.Add(packetMsg(1, 2, 3, []byte("payload")))
	f.Add(packetMsg(1, 0, 0, nil))
	f.Add(appendVerdict(nil, msgVerdict, 1, 2, 1, true, 3, []byte{1}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		for len(b) > 0 {
			m, rest, err := nextMsg(b)
			if err != nil {
				return
			}
			if len(rest) >= len(b) {
				t.Fatal("nextMsg made no progress")
			}
			b = rest
			var p Packet
			kind, _, _, err := parseMsg(m, &p)
			if kind == kindPacket && err == nil && int(p.Len) < len(p.Payload) {
				t.Fatalf("Len %d shorter than payload %d", p.Len, len(p.Payload))
			}
		}
	})
}

func FuzzParseProcStats(f *testing.F) {
	f.Add([]byte("    1  -4005     7 1     0    12     3     1234  1\n"), uint16(1))
	f.Add([]byte("1 2 3 4 5 6 7 99999999999 1"), uint16(1))
	f.Fuzz(func(t *testing.T, b []byte, num uint16) {
		var st Stats
		_ = parseProcStats(b, num, &st)
	})
}
