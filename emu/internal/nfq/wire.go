package nfq

import (
	"encoding/binary"
	"errors"
	"time"
)

// Netlink and nfnetlink_queue wire constants (linux/netlink.h,
// linux/netfilter/nfnetlink.h, linux/netfilter/nfnetlink_queue.h). They are
// written out here so the encoder and parser are plain functions that build
// and test on any OS.
const (
	nlmsgHdrLen = 16
	nfgenHdrLen = 4
	nlaHdrLen   = 4

	nlmsgError = 0x2
	nlmsgDone  = 0x3

	nlmFRequest = 0x1
	nlmFAck     = 0x4

	subsysQueue     = 3
	msgPacket       = subsysQueue<<8 | 0
	msgVerdict      = subsysQueue<<8 | 1
	msgConfig       = subsysQueue<<8 | 2
	msgVerdictBatch = subsysQueue<<8 | 3

	attrPacketHdr  = 1
	attrVerdictHdr = 2
	attrMark       = 3
	attrTimestamp  = 4
	attrInDev      = 5
	attrOutDev     = 6
	attrPayload    = 10
	attrCapLen     = 13
	attrSkbInfo    = 14

	cfgCmd    = 1
	cfgParams = 2
	cfgMaxLen = 3
	cfgMask   = 4
	cfgFlags  = 5

	cmdBind = 1

	flagFailOpen = 0x1
	flagGSO      = 0x4

	nlaTypeMask = 0x3fff // without NLA_F_NESTED and NLA_F_NET_BYTEORDER

	verdictDrop   = 0
	verdictAccept = 1
)

var be = binary.BigEndian
var ne = binary.NativeEndian

// msgKind says what a received netlink message was.
type msgKind int

const (
	kindOther  msgKind = iota // ignored (NLMSG_DONE, unknown types)
	kindPacket                // a queued packet, parsed into *Packet
	kindError                 // NLMSG_ERROR: an ack (errno 0) or a rejection
)

var errShort = errors.New("nfq: truncated netlink message")

// nextMsg splits the first netlink message off b. It returns the message,
// the rest, and errShort when the header's length does not fit.
func nextMsg(b []byte) (msg, rest []byte, err error) {
	if len(b) < nlmsgHdrLen {
		return nil, nil, errShort
	}
	l := int(ne.Uint32(b))
	if l < nlmsgHdrLen || l > len(b) {
		return nil, nil, errShort
	}
	al := align4(l)
	if al > len(b) {
		al = len(b)
	}
	return b[:l], b[al:], nil
}

// parseMsg decodes one netlink message. For a packet it fills p (Payload
// aliases msg); for an error message it returns the (positive) errno, 0 for
// an ack, and the sequence number of the message it answers.
func parseMsg(msg []byte, p *Packet) (kind msgKind, errno int32, seq uint32, err error) {
	if len(msg) < nlmsgHdrLen {
		return kindOther, 0, 0, errShort
	}
	typ := ne.Uint16(msg[4:])
	switch typ {
	case nlmsgError:
		if len(msg) < nlmsgHdrLen+4+nlmsgHdrLen {
			return kindOther, 0, 0, errShort
		}
		e := int32(ne.Uint32(msg[nlmsgHdrLen:]))
		orig := msg[nlmsgHdrLen+4:]
		return kindError, -e, ne.Uint32(orig[8:]), nil
	case msgPacket:
		return kindPacket, 0, 0, parsePacket(msg[nlmsgHdrLen:], p)
	}
	return kindOther, 0, 0, nil
}

// parsePacket decodes the nfgenmsg and attributes of a packet message.
func parsePacket(b []byte, p *Packet) error {
	if len(b) < nfgenHdrLen {
		return errShort
	}
	*p = Packet{}
	var capLen uint32
	haveHdr := false
	b = b[nfgenHdrLen:]
	for len(b) >= nlaHdrLen {
		l := int(ne.Uint16(b))
		if l < nlaHdrLen || l > len(b) {
			return errShort
		}
		typ := ne.Uint16(b[2:]) & nlaTypeMask
		d := b[nlaHdrLen:l]
		switch typ {
		case attrPacketHdr:
			if len(d) < 7 {
				return errShort
			}
			p.ID = be.Uint32(d)
			p.HwProto = be.Uint16(d[4:])
			p.Hook = d[6]
			haveHdr = true
		case attrMark:
			p.Mark = u32(d)
		case attrInDev:
			p.InDev = u32(d)
		case attrOutDev:
			p.OutDev = u32(d)
		case attrCapLen:
			capLen = u32(d)
		case attrSkbInfo:
			p.Flags = PacketFlags(u32(d))
		case attrTimestamp:
			if len(d) >= 16 {
				sec, usec := be.Uint64(d), be.Uint64(d[8:])
				p.Time = time.Unix(int64(sec), int64(usec)*1000)
			}
		case attrPayload:
			p.Payload = d[:len(d):len(d)]
		}
		al := align4(l)
		if al > len(b) {
			break
		}
		b = b[al:]
	}
	if !haveHdr {
		return errors.New("nfq: packet message without packet header")
	}
	p.Len = uint32(len(p.Payload))
	if capLen > p.Len {
		p.Len = capLen
	}
	return nil
}

func u32(d []byte) uint32 {
	if len(d) < 4 {
		return 0
	}
	return be.Uint32(d)
}

func align4(n int) int { return (n + 3) &^ 3 }

// appendHeader appends a netlink header and nfgenmsg for queue num and
// returns the offset of the header, to patch its length once the
// attributes are in.
func appendHeader(b []byte, typ uint16, flags uint16, seq uint32, num uint16) ([]byte, int) {
	start := len(b)
	b = ne.AppendUint32(b, 0) // length, patched by finish
	b = ne.AppendUint16(b, typ)
	b = ne.AppendUint16(b, flags)
	b = ne.AppendUint32(b, seq)
	b = ne.AppendUint32(b, 0) // port id: the kernel
	b = append(b, 0, 0)       // nfgenmsg: AF_UNSPEC, NFNETLINK_V0
	b = be.AppendUint16(b, num)
	return b, start
}

func finish(b []byte, start int) []byte {
	ne.PutUint32(b[start:], uint32(len(b)-start))
	return b
}

func appendAttr(b []byte, typ uint16, data []byte) []byte {
	b = ne.AppendUint16(b, uint16(nlaHdrLen+len(data)))
	b = ne.AppendUint16(b, typ)
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func appendAttrU32(b []byte, typ uint16, v uint32) []byte {
	b = ne.AppendUint16(b, nlaHdrLen+4)
	b = ne.AppendUint16(b, typ)
	return be.AppendUint32(b, v)
}

// appendVerdict appends a verdict for id (msgVerdict) or for every queued
// id up to and including id (msgVerdictBatch), optionally with a mark and a
// replacement payload.
func appendVerdict(b []byte, typ uint16, num uint16, id, verdict uint32, setMark bool, mark uint32, payload []byte) []byte {
	b, start := appendHeader(b, typ, nlmFRequest, 0, num)
	b = ne.AppendUint16(b, nlaHdrLen+8)
	b = ne.AppendUint16(b, attrVerdictHdr)
	b = be.AppendUint32(b, verdict)
	b = be.AppendUint32(b, id)
	if setMark {
		b = appendAttrU32(b, attrMark, mark)
	}
	if payload != nil {
		b = appendAttr(b, attrPayload, payload)
	}
	return finish(b, start)
}

// verdictSize is the encoded size of a verdict message.
func verdictSize(setMark bool, payload []byte) int {
	n := nlmsgHdrLen + nfgenHdrLen + nlaHdrLen + 8
	if setMark {
		n += nlaHdrLen + 4
	}
	if payload != nil {
		n += nlaHdrLen + align4(len(payload))
	}
	return n
}

// appendConfig appends the configuration message Open sends: bind the
// queue, set the copy mode and range, the kernel queue length and flags.
func appendConfig(b []byte, seq uint32, cfg *Config) []byte {
	b, start := appendHeader(b, msgConfig, nlmFRequest|nlmFAck, seq, cfg.Num)
	b = appendAttr(b, cfgCmd, []byte{cmdBind, 0, 0, 0})
	params := be.AppendUint32(nil, cfg.CopyRange)
	params = append(params, byte(cfg.CopyMode))
	b = appendAttr(b, cfgParams, params)
	b = appendAttrU32(b, cfgMaxLen, cfg.MaxQueueLen)
	var flags uint32
	if cfg.GSO {
		flags |= flagGSO
	}
	if cfg.FailOpen {
		flags |= flagFailOpen
	}
	b = appendAttrU32(b, cfgMask, flagGSO|flagFailOpen)
	b = appendAttrU32(b, cfgFlags, flags)
	return finish(b, start)
}
