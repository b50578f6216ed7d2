package dcproxy

import (
	"errors"
	"time"

	"github.com/dc-emu/emu/emu/internal/gsofwd"
	"github.com/dc-emu/emu/pdcp"
)

// Rx is the receive stage of the PDCP batch path: it reads each arriving
// PDU's SN, runs pdcp.Receiver on it, and collects the SDUs the receiver
// releases, in COUNT order, for one write to the TUN. An SDU delivered in
// the batch that brought it is not copied; only an SDU the receiver holds
// is, into a slot of its own, because the receive buffers are reused by
// the next read. It is not safe for concurrent use.
type Rx struct {
	// ents are the entities: 0 the DC client's, i+1 steered flow i's,
	// found from the SDU a PDU carries.
	ents      pdcp.RxEntities
	bits      int
	hl        int
	offset    int
	deliverFn pdcp.DeliverFunc

	// slots hold the SDUs the receiver holds, each at [offset:] of its
	// buffer, slotLen long; free lists the slots that hold nothing.
	slots   [][]byte
	slotLen []int
	filled  []bool
	free    []uint32

	batch   [][]byte // the datagrams of the current Place, each its whole buffer
	sizes   []int
	out     [][]byte // the SDUs to write, each at [offset:]
	release []uint32 // slots in out, freed by Done

	// Malformed counts datagrams too short for the header or carrying a
	// control PDU: dropped.
	Malformed uint64
	// Tunnelled counts the bare IP packets passed on as they came (see
	// gsofwd.Tunnel).
	Tunnelled uint64
}

// NewRx returns a receive stage for SNs of bits bits and t-Reordering
// tReordering, whose datagrams and written SDUs start offset bytes into
// their buffers (the TUN's headroom).
func NewRx(bits int, tReordering time.Duration, offset int) (*Rx, error) {
	ents, err := pdcp.NewRxEntities(bits, tReordering)
	if err != nil {
		return nil, err
	}
	hl := pdcp.HeaderLen(bits)
	if offset < hl {
		return nil, errors.New("dcproxy: offset shorter than the PDCP header")
	}
	rx := &Rx{ents: ents, bits: bits, hl: hl, offset: offset}
	rx.deliverFn = rx.deliver
	return rx, nil
}

// Steer gives each rule's flow a receiving entity of its own, matching
// the transmitting end's. Call it before the first Place.
func (r *Rx) Steer(rules []pdcp.SteerRule) error { return r.ents.Steer(rules) }

// Place runs the datagrams bufs[i][offset:offset+sizes[i]] through the
// receiver and returns the SDUs released, in COUNT order, each at [offset:]
// of its slice, ready for the TUN; a tunnelled packet is among them at
// once, in its place. The slices refer to bufs and to the stage's slots:
// write them before bufs are reused, then call Done.
func (r *Rx) Place(bufs [][]byte, sizes []int, now time.Duration) [][]byte {
	r.batch, r.sizes = bufs, sizes
	for i, b := range bufs {
		if sizes[i] == 0 {
			continue
		}
		if gsofwd.Tunnelled(b[r.offset : r.offset+sizes[i]]) {
			r.out = append(r.out, b[:r.offset+sizes[i]])
			r.Tunnelled++
			continue
		}
		sn, sdu, err := pdcp.ParseHeader(b[r.offset:r.offset+sizes[i]], r.bits)
		if err != nil {
			r.Malformed++
			continue
		}
		s := r.nextSlot()
		if r.ents.Receive(sn, sdu, pdcp.Handle{ID: uint32(i), Aux: s}, now, r.deliverFn) == pdcp.Buffered {
			r.hold(s, sdu)
		}
	}
	r.ents.Sample()
	r.batch, r.sizes = nil, nil
	return r.out
}

// Expire runs t-Reordering's expiry if due at now and returns the SDUs it
// released, as Place does; call Done after writing them.
func (r *Rx) Expire(now time.Duration) [][]byte {
	r.ents.Expire(now, r.deliverFn)
	return r.out
}

// Flush releases every SDU held, for shutdown; call Done after writing
// them.
func (r *Rx) Flush(now time.Duration) [][]byte {
	r.ents.Flush(now, r.deliverFn)
	return r.out
}

// Done frees the slots whose SDUs the last Place, Expire or Flush returned.
func (r *Rx) Done() {
	for _, s := range r.release {
		r.filled[s] = false
		r.free = append(r.free, s)
	}
	r.release = r.release[:0]
	r.out = r.out[:0]
}

// Deadline is when the first entity's t-Reordering expires, if one runs.
func (r *Rx) Deadline() (d time.Duration, running bool) { return r.ents.Deadline() }

// Counters returns the receivers' counters, every entity's summed;
// MaxBuffered is the most SDUs they held at once together.
func (r *Rx) Counters() pdcp.RxCounters { return r.ents.Counters() }

// Held returns how many SDUs the stage holds.
func (r *Rx) Held() int { return r.ents.Buffered() }

// nextSlot returns the slot an arriving SDU would be held in, making one
// when none is free; it stays free until hold fills it.
func (r *Rx) nextSlot() uint32 {
	if len(r.free) == 0 {
		r.slots = append(r.slots, nil)
		r.slotLen = append(r.slotLen, 0)
		r.filled = append(r.filled, false)
		r.free = append(r.free, uint32(len(r.slots)-1))
	}
	return r.free[len(r.free)-1]
}

// hold copies sdu into slot s, the one nextSlot returned.
func (r *Rx) hold(s uint32, sdu []byte) {
	r.free = r.free[:len(r.free)-1]
	if cap(r.slots[s]) < r.offset+len(sdu) {
		r.slots[s] = make([]byte, r.offset+max(len(sdu), 2048))
	}
	copy(r.slots[s][r.offset:], sdu)
	r.slotLen[s], r.filled[s] = len(sdu), true
}

// deliver appends the SDU with handle h to out: from its slot if it was
// held, else from the batch that brought it.
func (r *Rx) deliver(h pdcp.Handle, _ pdcp.Reason) {
	if s := h.Aux; int(s) < len(r.filled) && r.filled[s] {
		r.out = append(r.out, r.slots[s][:r.offset+r.slotLen[s]])
		r.release = append(r.release, s)
		return
	}
	b := r.batch[h.ID]
	r.out = append(r.out, b[r.hl:r.offset+r.sizes[h.ID]])
}
