package nfq

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Accept lets packet id continue through netfilter.
func (q *Queue) Accept(id uint32) {
	q.add(msgVerdict, id, verdictAccept, false, 0, nil)
}

// Drop drops packet id.
func (q *Queue) Drop(id uint32) {
	q.add(msgVerdict, id, verdictDrop, false, 0, nil)
}

// AcceptUpTo accepts every packet still queued whose id is id or earlier
// (NFQNL_MSG_VERDICT_BATCH), in one message. Packets given their own
// verdict before, in the same Flush or an earlier one, are not affected.
func (q *Queue) AcceptUpTo(id uint32) {
	q.add(msgVerdictBatch, id, verdictAccept, false, 0, nil)
}

// AcceptWithMark accepts packet id and sets its netfilter mark, which
// later rules and policy routing (ip rule fwmark) see.
func (q *Queue) AcceptWithMark(id, mark uint32) {
	q.add(msgVerdict, id, verdictAccept, true, mark, nil)
}

// AcceptModified accepts packet id with payload (from the network header
// on) in place of its bytes, and sets its mark. The payload is copied into
// the send buffer; the caller may reuse it at once. The kernel trusts the
// new bytes: the caller fixes lengths and checksums.
func (q *Queue) AcceptModified(id, mark uint32, payload []byte) {
	if payload == nil {
		payload = []byte{}
	}
	q.add(msgVerdict, id, verdictAccept, true, mark, payload)
}

// add appends a verdict to the send buffer, writing the buffer out first
// when the verdict would not fit. A write error is kept for Flush.
func (q *Queue) add(typ uint16, id, verdict uint32, setMark bool, mark uint32, payload []byte) {
	if len(q.sendBuf)+verdictSize(setMark, payload) > cap(q.sendBuf) {
		if err := q.send(); err != nil && q.sendErr == nil {
			q.sendErr = err
		}
	}
	q.sendBuf = appendVerdict(q.sendBuf, typ, q.cfg.Num, id, verdict, setMark, mark, payload)
}

// Pending returns the number of bytes of verdicts waiting for Flush.
func (q *Queue) Pending() int { return len(q.sendBuf) }

// Flush hands every pending verdict to the kernel in one write. It returns
// the first error since the last Flush, including one from a write that add
// made when the buffer filled up. Verdicts the kernel rejects one by one
// (an unknown id) do not fail Flush; they are counted in Stats.
func (q *Queue) Flush() error {
	err := q.send()
	if q.sendErr != nil {
		err, q.sendErr = q.sendErr, nil
	}
	return err
}

func (q *Queue) send() error {
	if len(q.sendBuf) == 0 {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	defer func() { q.sendBuf = q.sendBuf[:0] }()
	if q.closed.Load() {
		return ErrClosed
	}
	for {
		_, err := unix.Write(q.fd, q.sendBuf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("nfq: queue %d: send verdicts: %w", q.cfg.Num, err)
		}
		return nil
	}
}
