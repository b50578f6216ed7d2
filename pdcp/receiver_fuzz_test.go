package pdcp

import (
	"slices"
	"testing"
	"time"
)

// model is a naive transcription of pdcp-reordering.md §2 with maps and
// sorting, against which FuzzReceiver checks the Receiver.
type model struct {
	bits, m, w         int64
	tReor              time.Duration
	next, deliv, reord int64
	running            bool
	start              time.Duration
	buf                map[int64]Handle
	done               map[int64]bool // COUNTs delivered (not given up)
	out                []modelDelivery
}

type modelDelivery struct {
	c   int64
	h   Handle
	why Reason
}

func newModel(bits int, t time.Duration) *model {
	return &model{bits: int64(bits), m: 1 << bits, w: 1 << (bits - 1), tReor: t,
		buf: map[int64]Handle{}, done: map[int64]bool{}}
}

func (m *model) countOf(sn uint32) int64 {
	s := int64(sn) % m.m
	hfnD, snD := m.deliv/m.m, m.deliv%m.m // deliv ≥ 0
	hfn := hfnD
	if s < snD-m.w {
		hfn = hfnD + 1
	} else if s >= snD+m.w {
		hfn = hfnD - 1
	}
	return hfn*m.m + s
}

func (m *model) emit(c int64, why Reason) {
	m.out = append(m.out, modelDelivery{c, m.buf[c], why})
	m.done[c] = true
	delete(m.buf, c)
}

func (m *model) receive(sn uint32, h Handle, now time.Duration) (Verdict, int64) {
	m.expire(now)
	c := m.countOf(sn)
	if c < m.deliv {
		if m.done[c] {
			return DiscardDuplicate, c
		}
		return DiscardOld, c
	}
	if _, dup := m.buf[c]; dup {
		return DiscardDuplicate, c
	}
	m.buf[c] = h
	if c >= m.next {
		m.next = c + 1
	}
	v := Buffered
	if c == m.deliv {
		v = Delivered
		for {
			if _, ok := m.buf[m.deliv]; !ok {
				break
			}
			m.emit(m.deliv, InOrder)
			m.deliv++
		}
	}
	if m.running && m.deliv >= m.reord {
		m.running = false
	}
	if !m.running && m.deliv < m.next {
		m.reord, m.running, m.start = m.next, true, now
	}
	return v, c
}

func (m *model) expire(now time.Duration) {
	for m.running && now >= m.start+m.tReor {
		m.running = false
		m.deliverBelow(m.reord, OnExpiry)
		for {
			if _, ok := m.buf[m.deliv]; !ok {
				break
			}
			m.emit(m.deliv, OnExpiry)
			m.deliv++
		}
		if m.deliv < m.next {
			m.reord, m.running, m.start = m.next, true, now
		}
	}
}

func (m *model) deliverBelow(end int64, why Reason) {
	var keys []int64
	if end-m.deliv <= int64(len(m.buf)) { // walk the range or sort the map, whichever is shorter
		for c := m.deliv; c < end; c++ {
			if _, ok := m.buf[c]; ok {
				keys = append(keys, c)
			}
		}
	} else {
		for c := range m.buf {
			if c < end {
				keys = append(keys, c)
			}
		}
		slices.Sort(keys)
	}
	for _, c := range keys {
		m.emit(c, why)
	}
	m.deliv = max(m.deliv, end)
}

func (m *model) flush() {
	m.deliverBelow(m.next, OnFlush)
	m.running = false
}

func (m *model) state() State {
	return State{Next: m.next, Deliv: m.deliv, Reord: m.reord, TimerRunning: m.running}
}

// FuzzReceiver drives the Receiver and the model with the same operations
// decoded from the input (new PDUs lost, sent once or duplicated; arrivals
// in any order; stale copies; bursts; clock steps; expiries) and requires
// identical verdicts, deliveries and state after every operation, plus:
// delivered COUNTs strictly increase, every accepted PDU is delivered once by
// the final Flush, and as long as no PDU arrived W or more COUNTs away from
// RX_DELIV, the COUNT the receiver derives is the true one.
func FuzzReceiver(f *testing.F) {
	f.Add([]byte{0x06, 0, 1, 0, 1, 0, 1, 3, 1, 3, 0, 4, 0, 5, 200, 6, 0})
	f.Add([]byte{0x07, 7, 255, 0, 0, 0, 1, 7, 200, 4, 0, 5, 255, 6, 0, 8, 3})
	f.Add([]byte{0x01, 7, 255, 7, 255, 0, 2, 0, 0, 0, 2, 3, 5, 3, 1, 4, 0, 4, 0, 8, 100})
	f.Add([]byte{0x00, 0, 1, 0, 1, 3, 1, 6, 0, 4, 0, 0, 1})
	f.Add([]byte("071X\x8b00Y00")) // t-Reordering 0 expiring inside Receive

	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		bits := SNBits12
		if in[0]&1 != 0 {
			bits = SNBits18
		}
		tReor := [4]time.Duration{0, ms, 20 * ms, 200 * ms}[in[0]>>1&3]
		r, err := NewReceiver(bits, tReor)
		if err != nil {
			t.Fatal(err)
		}
		md := newModel(bits, tReor)
		w := int64(Window(bits))

		var (
			now      time.Duration
			next     uint64 // next true COUNT the sender assigns
			inflight []uint64
			got      []modelDelivery
			lastC    = int64(-1)
			aliased  bool
			accepted int
		)
		deliver := func(h Handle, why Reason) { got = append(got, modelDelivery{h: h, why: why}) }
		budget := 20000 // arrivals per input, so no input runs for seconds
		compare := func(what string, count uint64) {
			if len(got) != len(md.out) {
				t.Fatalf("%s %d: receiver delivered %d SDUs, model %d (%v vs %v)", what, count, len(got), len(md.out), got, md.out)
			}
			for i, d := range md.out {
				if got[i].h != d.h || got[i].why != d.why {
					t.Fatalf("%s %d: delivery %d: receiver %v/%v, model COUNT %d %v/%v", what, count, i, got[i].h, got[i].why, d.c, d.h, d.why)
				}
				if d.c <= lastC {
					t.Fatalf("%s %d: COUNT %d delivered after %d", what, count, d.c, lastC)
				}
				lastC = d.c
				if !aliased && int64(d.h.ID) != d.c {
					t.Fatalf("%s %d: delivered true COUNT %d as %d without aliasing", what, count, d.h.ID, d.c)
				}
			}
			got, md.out = got[:0], md.out[:0]
			if rs, ms := r.State(), md.state(); rs != ms {
				t.Fatalf("%s %d: receiver state %+v, model %+v", what, count, rs, ms)
			}
			if r.Buffered() != len(md.buf) {
				t.Fatalf("%s %d: receiver holds %d, model %d", what, count, r.Buffered(), len(md.buf))
			}
			rd, ron := r.Deadline()
			if ron != md.running || ron && rd != md.start+md.tReor {
				t.Fatalf("%s %d: deadline %v/%v, model %v/%v", what, count, rd, ron, md.start+md.tReor, md.running)
			}
		}
		arrive := func(count uint64, copyNo uint32) {
			sn := SN(count, bits)
			h := Handle{ID: uint32(count), Aux: copyNo}
			// Receive runs a due expiry first; run it here so the window
			// check below sees the RX_DELIV the arrival meets.
			r.Expire(now, deliver)
			md.expire(now)
			inWindow := int64(count) >= md.deliv-w && int64(count) < md.deliv+w
			v := r.Receive(sn, h, now, deliver)
			mv, c := md.receive(sn, h, now)
			if v != mv {
				t.Fatalf("COUNT %d (SN %d) at %v: verdict %v, model %v", count, sn, now, v, mv)
			}
			if inWindow && c != int64(count) {
				t.Fatalf("COUNT %d in window derived as %d", count, c)
			}
			if !inWindow && (v == Buffered || v == Delivered) {
				aliased = true
			}
			if v == Buffered || v == Delivered {
				accepted++
			}
			budget--
			compare("arrival of COUNT", count)
		}

		ops := in[1:]
		for i := 0; i+1 < len(ops) && budget > 0; i += 2 {
			op, arg := ops[i]%9, ops[i+1]
			switch op {
			case 0, 1, 2: // a new PDU: lost, sent once, or duplicated
				for range arg % 3 {
					inflight = append(inflight, next)
				}
				next++
			case 3: // an arbitrary in-flight PDU arrives
				if len(inflight) > 0 {
					j := int(arg) % len(inflight)
					c := inflight[j]
					inflight = slices.Delete(inflight, j, j+1)
					arrive(c, uint32(i))
				}
			case 4: // the oldest in-flight PDU arrives
				if len(inflight) > 0 {
					c := inflight[0]
					inflight = inflight[1:]
					arrive(c, uint32(i))
				}
			case 5: // time passes
				now += time.Duration(arg) * ms
			case 6:
				r.Expire(now, deliver)
				md.expire(now)
				compare("expire at ms", uint64(now/ms))
			case 7: // a burst of new PDUs arriving in order
				for range min(int(arg)*16, budget) {
					arrive(next, 0)
					next++
				}
			case 8: // a stale copy of an old COUNT
				if next > 0 {
					arrive(next-1-uint64(arg)*uint64(arg)*8%next, 1)
				}
			}
		}
		r.Flush(now, deliver)
		md.flush()
		compare("flush at ms", uint64(now/ms))
		c := r.Counters
		if r.Buffered() != 0 || c.Delivered != uint64(accepted) || c.HoldTime.Count != c.Delivered {
			t.Fatalf("after Flush: %d buffered, %d delivered of %d accepted, %d hold samples", r.Buffered(), c.Delivered, accepted, c.HoldTime.Count)
		}
		if c.Received != c.Delivered+c.DuplicatesDiscarded+c.OldDiscarded {
			t.Fatalf("counters do not add up: %+v", c)
		}
	})
}
