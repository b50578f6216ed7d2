package pdcp

import (
	"errors"
	"fmt"
	"time"
)

// Handle is the caller's reference to an SDU the receiver holds: the
// receiver never sees packet bytes. Both fields are the caller's: emu/dcproxy
// puts the datagram's index in its batch in ID and in Aux the slot it
// copies the SDU into if the receiver holds it.
type Handle struct {
	ID  uint32
	Aux uint32
}

// Verdict says what Receive did with the arriving PDU.
type Verdict uint8

const (
	// Buffered: held until the COUNTs before it arrive or t-Reordering
	// expires; its handle will be passed to a later deliver call.
	Buffered Verdict = iota
	// Delivered: handed to deliver during this call (with everything the
	// arrival released).
	Delivered
	// DiscardDuplicate: a copy of a COUNT already buffered or delivered.
	// Drop the packet.
	DiscardDuplicate
	// DiscardOld: too late (its COUNT was given up) or out of window. Drop
	// the packet.
	DiscardOld
)

func (v Verdict) String() string {
	switch v {
	case Buffered:
		return "buffered"
	case Delivered:
		return "delivered"
	case DiscardDuplicate:
		return "discard-duplicate"
	case DiscardOld:
		return "discard-old"
	}
	return fmt.Sprintf("verdict(%d)", uint8(v))
}

// Reason says why an SDU is delivered.
type Reason uint8

const (
	// InOrder: every COUNT before it has been delivered.
	InOrder Reason = iota
	// OnExpiry: t-Reordering expired and the holes before it were given up.
	OnExpiry
	// OnFlush: Flush emptied the buffer.
	OnFlush
)

func (r Reason) String() string {
	switch r {
	case InOrder:
		return "in-order"
	case OnExpiry:
		return "expiry"
	case OnFlush:
		return "flush"
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// DeliverFunc receives SDUs in ascending COUNT order: pass on the SDU with
// handle h. It must not call back into the Receiver.
type DeliverFunc func(h Handle, why Reason)

// Receiver is the receive side of one PDCP entity: the reordering and
// duplicate discard of TS 38.323 §5.2.2 (pdcp-reordering.md §2), for 12- and
// 18-bit SNs, on COUNTs kept as signed 64-bit integers. It is driven by the
// caller's clock: every call takes now, Deadline tells when t-Reordering
// expires, and the caller calls Expire then. It is not safe for concurrent
// use.
//
// Memory is fixed at construction, one 16-byte slot per COUNT of the window
// W plus two bits: 12-bit SNs (W = 2048) take 32.5 KiB, 18-bit SNs
// (W = 131072) 2 MiB + 32 KiB. The SDUs themselves stay with the caller
// (emu/dcproxy copies only the ones the receiver holds). No call
// allocates.
type Receiver struct {
	bits  int
	m, w  int64 // SN space 2^bits, window 2^(bits-1)
	tReor time.Duration

	next, deliv, reord int64 // RX_NEXT, RX_DELIV, RX_REORD
	running            bool
	started            time.Duration

	slots     []slot  // COUNT c at c mod W, valid where present is set
	present   bitring // COUNTs in [deliv, deliv+W) that are buffered
	delivered bitring // COUNTs in [deliv-W, deliv) that were delivered (not given up)
	buffered  int

	// Counters are updated by every call; read them from the Receiver's
	// goroutine.
	Counters RxCounters
}

type slot struct {
	h  Handle
	at time.Duration // arrival
}

// NewReceiver returns a Receiver for SNs of bits bits (12 or 18) and the
// given t-Reordering (0 gives up a hole at the next Expire or Receive call).
// Errors are *FieldErrors naming SNBits or TReordering.
func NewReceiver(bits int, tReordering time.Duration) (*Receiver, error) {
	if err := CheckSNBits(bits); err != nil {
		return nil, err
	}
	if tReordering < 0 {
		return nil, &FieldError{Field: "TReordering", Value: tReordering.String(), Err: errors.New("must not be negative")}
	}
	w := Window(bits)
	return &Receiver{
		bits:      bits,
		m:         int64(w) * 2,
		w:         int64(w),
		tReor:     tReordering,
		slots:     make([]slot, w),
		present:   newBitring(w),
		delivered: newBitring(w),
	}, nil
}

// count maps a received SN to the one COUNT in [RX_DELIV-W, RX_DELIV+W).
// It is negative when RX_DELIV's HFN is 0 and the SN belongs "before" it.
func (r *Receiver) count(sn uint32) int64 {
	s := int64(sn) & (r.m - 1)
	hfn := r.deliv >> r.bits
	snD := r.deliv & (r.m - 1)
	switch {
	case s < snD-r.w:
		hfn++
	case s >= snD+r.w:
		hfn--
	}
	return hfn<<r.bits | s
}

// Receive processes the PDU with SN sn (only its low bits are used) held as
// h. A t-Reordering expiry due at now runs first. Every SDU the arrival
// releases, the arriving one included, goes to deliver in COUNT order.
func (r *Receiver) Receive(sn uint32, h Handle, now time.Duration, deliver DeliverFunc) Verdict {
	r.Expire(now, deliver)
	r.Counters.Received++
	c := r.count(sn)
	if c < r.deliv {
		if c >= 0 && r.delivered.get(c) {
			r.Counters.DuplicatesDiscarded++
			return DiscardDuplicate
		}
		r.Counters.OldDiscarded++
		return DiscardOld
	}
	if r.present.get(c) {
		r.Counters.DuplicatesDiscarded++
		return DiscardDuplicate
	}
	if c < r.next {
		r.Counters.Reordered++
	} else {
		r.next = c + 1
	}
	verdict := Buffered
	if c == r.deliv {
		// In order: deliver it straight away, then whatever it unblocks.
		verdict = Delivered
		r.deliverOne(h, now, now, InOrder, deliver)
		r.delivered.set(c)
		r.deliv++
		r.deliverRun(now, InOrder, deliver)
	} else {
		r.slots[uint64(c)&uint64(r.w-1)] = slot{h: h, at: now}
		r.present.set(c)
		r.buffered++
		r.Counters.Held++
		r.Counters.MaxBuffered = max(r.Counters.MaxBuffered, r.buffered)
	}
	if r.running && r.deliv >= r.reord {
		r.running = false
	}
	r.maybeStart(now)
	return verdict
}

// Deadline returns when t-Reordering expires, if it is running.
func (r *Receiver) Deadline() (time.Duration, bool) {
	return r.started + r.tReor, r.running
}

// Expire runs the t-Reordering expiry if it is due at now (and again if the
// restarted timer is due too, which happens only with t-Reordering 0): it
// delivers every buffered SDU below RX_REORD, giving up the holes between
// them, then the consecutive run from RX_REORD, and restarts the timer if
// SDUs remain buffered. Calling it early or with no timer running does
// nothing.
func (r *Receiver) Expire(now time.Duration, deliver DeliverFunc) {
	for r.running && now >= r.started+r.tReor {
		r.running = false
		r.Counters.Expiries++
		r.deliverBelow(r.reord, now, OnExpiry, deliver)
		r.deliverRun(now, OnExpiry, deliver)
		r.maybeStart(now)
	}
}

// Flush delivers every buffered SDU in COUNT order, giving up the holes
// between them, and stops the timer: for shutdown. The Receiver stays
// usable; it then waits for RX_NEXT.
func (r *Receiver) Flush(now time.Duration, deliver DeliverFunc) {
	r.deliverBelow(r.next, now, OnFlush, deliver)
	r.running = false
}

// Buffered returns how many SDUs the Receiver holds now.
func (r *Receiver) Buffered() int { return r.buffered }

// State is the receiver's protocol state, for tests and debugging.
type State struct {
	Next, Deliv, Reord int64 // RX_NEXT, RX_DELIV, RX_REORD
	TimerRunning       bool
}

// State returns the current protocol state.
func (r *Receiver) State() State {
	return State{Next: r.next, Deliv: r.deliv, Reord: r.reord, TimerRunning: r.running}
}

// maybeStart starts t-Reordering when SDUs wait behind a hole.
func (r *Receiver) maybeStart(now time.Duration) {
	if !r.running && r.deliv < r.next {
		r.reord = r.next
		r.running = true
		r.started = now
	}
}

// deliverRun delivers the buffered SDUs at RX_DELIV, RX_DELIV+1, … up to the
// first hole and advances RX_DELIV past them.
func (r *Receiver) deliverRun(now time.Duration, why Reason, deliver DeliverFunc) {
	for r.buffered > 0 && r.present.get(r.deliv) {
		r.take(r.deliv, now, why, deliver)
		r.deliv++
	}
}

// deliverBelow delivers every buffered SDU with COUNT < end in order, gives
// up the holes between them and sets RX_DELIV to end.
func (r *Receiver) deliverBelow(end int64, now time.Duration, why Reason, deliver DeliverFunc) {
	if end <= r.deliv {
		return
	}
	n := int64(r.buffered)
	r.delivered.clearRange(r.deliv, end)
	for c := r.present.next(r.deliv, end); c < end; c = r.present.next(c+1, end) {
		r.take(c, now, why, deliver)
	}
	r.Counters.GivenUp += uint64(end - r.deliv - (n - int64(r.buffered)))
	r.deliv = end
}

// take delivers the buffered SDU with COUNT c.
func (r *Receiver) take(c int64, now time.Duration, why Reason, deliver DeliverFunc) {
	s := r.slots[uint64(c)&uint64(r.w-1)]
	r.present.clear(c)
	r.delivered.set(c)
	r.buffered--
	r.deliverOne(s.h, s.at, now, why, deliver)
}

// deliverOne counts one delivery and hands it to the caller.
func (r *Receiver) deliverOne(h Handle, at, now time.Duration, why Reason, deliver DeliverFunc) {
	r.Counters.Delivered++
	switch why {
	case InOrder:
		r.Counters.DeliveredInOrder++
	case OnExpiry:
		r.Counters.DeliveredOnExpiry++
	case OnFlush:
		r.Counters.DeliveredOnFlush++
	}
	r.Counters.HoldTime.Add(now - at)
	deliver(h, why)
}
