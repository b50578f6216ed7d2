package link

import (
	"encoding/binary"
	"testing"
)

// nlMsg builds one netlink message of type typ and sequence seq.
func nlMsg(typ uint16, seq uint32, payload []byte) []byte {
	ne := binary.NativeEndian
	b := make([]byte, nlmsgHdrLen, align4(nlmsgHdrLen+len(payload)))
	ne.PutUint32(b[0:], uint32(nlmsgHdrLen+len(payload)))
	ne.PutUint16(b[4:], typ)
	ne.PutUint32(b[8:], seq)
	b = append(b, payload...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func attr(typ uint16, payload []byte) []byte {
	ne := binary.NativeEndian
	b := make([]byte, rtattrHdrLen)
	ne.PutUint16(b[0:], uint16(rtattrHdrLen+len(payload)))
	ne.PutUint16(b[2:], typ)
	b = append(b, payload...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// qdiscMsg is an RTM_NEWQDISC message as the kernel dumps it: tcmsg, a
// kind, options, and TCA_STATS2 with basic and queue counters.
func qdiscMsg(seq uint32, ifindex int32, handle, parent uint32, bytes uint64, packets, qlen, backlog, drops uint32) []byte {
	ne := binary.NativeEndian
	tc := make([]byte, tcmsgLen)
	ne.PutUint32(tc[4:], uint32(ifindex))
	ne.PutUint32(tc[8:], handle)
	ne.PutUint32(tc[12:], parent)
	basic := make([]byte, 16)
	ne.PutUint64(basic, bytes)
	ne.PutUint32(basic[8:], packets)
	queue := make([]byte, 20)
	ne.PutUint32(queue, qlen)
	ne.PutUint32(queue[4:], backlog)
	ne.PutUint32(queue[8:], drops)
	stats := append(attr(tcaStatsBas, basic), attr(tcaStatsQue, queue)...)
	p := append(tc, attr(1, []byte("htb\x00"))...)
	p = append(p, attr(2, make([]byte, 24))...)
	p = append(p, attr(tcaStats2|0x8000, stats)...) // NLA_F_NESTED, as newer kernels set it
	return nlMsg(rtmNewQdisc, seq, p)
}

func TestParseQdiscDump(t *testing.T) {
	const seq = 7
	var b []byte
	b = append(b, qdiscMsg(seq-1, 3, htbHandle, tcHRoot, 1, 1, 1, 1, 1)...)           // an earlier dump's: ignored
	b = append(b, qdiscMsg(seq, 2, 0, tcHRoot, 99, 9, 0, 0, 0)...)                    // noqueue on another interface
	b = append(b, qdiscMsg(seq, 3, leafHandle, classHandle, 5, 5, 5, 5, 5)...)        // the bfifo leaf: not the root
	b = append(b, qdiscMsg(seq, 3, htbHandle, tcHRoot, 1e10, 4e6, 42, 125000, 17)...) // link l1
	b = append(b, qdiscMsg(seq, 4, htbHandle, tcHRoot, 300, 2, 0, 0, 0)...)           // link l2
	out := make([]qdiscCounts, 3)
	done, err := parseQdiscDump(b, seq, htbHandle, []int{4, 3, 9}, out)
	if err != nil || done {
		t.Fatalf("done %v, err %v", done, err)
	}
	if want := (qdiscCounts{Bytes: 300, Packets: 2, found: true}); out[0] != want {
		t.Errorf("ifindex 4: %+v, want %+v", out[0], want)
	}
	if want := (qdiscCounts{Bytes: 1e10, Packets: 4e6, Backlog: 125000, Qlen: 42, Drops: 17, found: true}); out[1] != want {
		t.Errorf("ifindex 3: %+v, want %+v", out[1], want)
	}
	if out[2].found {
		t.Errorf("ifindex 9 found: %+v", out[2])
	}
	done, err = parseQdiscDump(nlMsg(nlmsgDone, seq, make([]byte, 4)), seq, htbHandle, nil, nil)
	if !done || err != nil {
		t.Errorf("NLMSG_DONE: done %v, err %v", done, err)
	}
	e := make([]byte, 4)
	binary.NativeEndian.PutUint32(e, uint32(0xffffffff-1)) // -2: ENOENT
	if done, err = parseQdiscDump(nlMsg(nlmsgError, seq, e), seq, htbHandle, nil, nil); !done || err == nil {
		t.Errorf("NLMSG_ERROR -2: done %v, err %v", done, err)
	}
	if _, err := parseQdiscDump(b[:len(b)-3], seq, htbHandle, []int{4}, out[:1]); err == nil {
		t.Error("a cut message parsed without error")
	}
}

func TestQdiscDumpRequest(t *testing.T) {
	b := make([]byte, 64)
	n := qdiscDumpRequest(b, 42)
	ne := binary.NativeEndian
	if n != 36 || ne.Uint32(b) != 36 || ne.Uint16(b[4:]) != rtmGetQdisc || ne.Uint16(b[6:]) != nlmFRequest|nlmFDump || ne.Uint32(b[8:]) != 42 {
		t.Errorf("request % x", b[:n])
	}
}

func FuzzParseQdiscDump(f *testing.F) {
	f.Add(qdiscMsg(1, 3, htbHandle, tcHRoot, 1e10, 4e6, 42, 125000, 17))
	f.Add(nlMsg(nlmsgDone, 1, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		out := make([]qdiscCounts, 2)
		parseQdiscDump(b, 1, htbHandle, []int{3, 4}, out) // must not panic
	})
}
