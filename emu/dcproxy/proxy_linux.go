package dcproxy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dc-emu/emu/emu/internal/nfq"
	"github.com/dc-emu/emu/emu/internal/procstat"
	"github.com/dc-emu/emu/pdcp"
	"github.com/dc-emu/emu/topo"
)

// proxyCopyRange is how much of each packet the proxies' queues copy: the
// kernel segments GSO packets before these queues (no F_GSO), so a packet
// is at most a link MTU (1520 bytes); a larger one would be copied short
// and its verdict would truncate it, so Send/Decap see the full length and
// refuse it.
const proxyCopyRange = slotSize

// Clock is the monotonic time the pdcp code sees. Both halves of a
// direction share one, so hold times compare across them.
type Clock struct{ start time.Time }

// NewClock starts a clock at zero now.
func NewClock() Clock { return Clock{start: time.Now()} }

func (c Clock) now() time.Duration { return time.Since(c.start) }

// Tx is the transmit proxy of one direction.
type Tx struct {
	q *nfq.Queue
	// The PDCP entities: 0 is the DC client's; Steer adds one per steered
	// flow, each with its own COUNTs and scheduler.
	ents   pdcp.TxEntities
	clock  Clock
	buf    []byte
	thread loopThread

	// Published by the loop for Snapshot, and link updates for the loop.
	mu       sync.Mutex
	counters pdcp.TxCounters
	latency  VerdictLatency
	queue    QueueStats
	links    [2]pdcp.LinkState
	linksNew bool
}

// Rx is the receive proxy of one direction.
type Rx struct {
	q *nfq.Queue
	// ents are the PDCP entities, as the transmit side's: 0 the DC
	// client's, one more per steered flow.
	ents   pdcp.RxEntities
	bits   int
	clock  Clock
	slots  slotPool
	thread loopThread

	// Published by the loop for Snapshot.
	mu        sync.Mutex
	counters  pdcp.RxCounters
	buffer    int // SDUs held at the last publication
	malformed uint64
	queue     QueueStats
}

// loopThread is a proxy loop's OS thread: its name, set before Run, its
// id, published by Run, and started, closed once Run has set the thread up
// (or failed to).
type loopThread struct {
	name    string
	tid     atomic.Int32
	started chan struct{}
}

func newLoopThread() loopThread { return loopThread{started: make(chan struct{})} }

// lock locks the calling goroutine to a precise real-time thread (as
// nfq.LockThreadPrecise), names it and publishes its id.
func (lt *loopThread) lock() (restore func(), err error) {
	defer close(lt.started)
	restore, _, err = nfq.LockThreadPrecise(nfq.SchedRealtime)
	if err != nil {
		return nil, err
	}
	lt.tid.Store(int32(procstat.TID()))
	if lt.name != "" {
		_ = procstat.NameThread(lt.name) // a name is a convenience
	}
	return restore, nil
}

// Started is closed once Run has locked its thread, or failed to: from
// then on TID is final. Turning real-time can wait for a garbage
// collection to end (package rtsched), so a caller that reads the
// proxies' threads waits for this rather than assume Run is quick.
func (t *Tx) Started() <-chan struct{} { return t.thread.started }

// Started is as Tx.Started.
func (r *Rx) Started() <-chan struct{} { return r.thread.started }

// SetThreadName names the OS thread Run will lock (at most 15 bytes show,
// in top -H and the run's readings). Call it before Run.
func (t *Tx) SetThreadName(name string) { t.thread.name = name }

// TID is the id of the OS thread Run locked, for procstat.ReadThread; 0
// before Run has locked it.
func (t *Tx) TID() int { return int(t.thread.tid.Load()) }

// SetThreadName names the OS thread Run will lock. Call it before Run.
func (r *Rx) SetThreadName(name string) { r.thread.name = name }

// TID is the id of the OS thread Run locked; 0 before Run has locked it.
func (r *Rx) TID() int { return int(r.thread.tid.Load()) }

// OpenTx opens the transmit proxy's queue in node. A PDU a scheduler puts
// on both links (duplicate) gets topo.MarkBoth, which routes it over
// link1; the copy for link2 is made by the kernel after the verdict
// (DupRule on that mark, installed by package emu).
func OpenTx(node *topo.NodeNS, num uint16, cfg Config, clock Clock) (*Tx, error) {
	sched, err := pdcp.NewScheduler(cfg.Sched)
	if err != nil {
		return nil, err
	}
	ents, err := pdcp.NewTxEntities(cfg.SNBits, sched)
	if err != nil {
		return nil, err
	}
	// Kernel timestamps give every packet's verdict latency (VerdictLatency).
	q, err := nfq.Open(nfq.Config{NetNS: int(node.NS), Num: num, CopyMode: nfq.CopyPacket, CopyRange: proxyCopyRange, Batch: 128, Timestamps: true})
	if err != nil {
		return nil, fmt.Errorf("%s: pdcp tx queue %d: %w", node.NSName, num, err)
	}
	return &Tx{q: q, ents: ents, clock: clock, buf: make([]byte, 0, 1<<16), thread: newLoopThread()}, nil
}

// OpenRx opens the receive proxy's queue in node.
func OpenRx(node *topo.NodeNS, num uint16, cfg Config, clock Clock) (*Rx, error) {
	ents, err := pdcp.NewRxEntities(cfg.SNBits, cfg.TReordering)
	if err != nil {
		return nil, err
	}
	q, err := nfq.Open(nfq.Config{NetNS: int(node.NS), Num: num, CopyMode: nfq.CopyPacket, CopyRange: proxyCopyRange, Batch: 128})
	if err != nil {
		return nil, fmt.Errorf("%s: pdcp rx queue %d: %w", node.NSName, num, err)
	}
	return &Rx{q: q, ents: ents, bits: cfg.SNBits, clock: clock, thread: newLoopThread()}, nil
}

// setLink updates what the scheduler knows of link i (rate changes of a
// trace, queue backlog); the loop applies it before its next packet.
func (t *Tx) SetLink(i int, s pdcp.LinkState) {
	t.mu.Lock()
	t.links[i], t.linksNew = s, true
	t.mu.Unlock()
}

// run is the transmit loop; it owns the queue, the sender and the scheduler.
func (t *Tx) Run(ctx context.Context) error {
	restore, err := t.thread.lock()
	if err != nil {
		return err
	}
	defer restore()
	pkts := make([]nfq.Packet, 128)
	var l txLoop // the loop's own; published with the counters
	lastPublish := time.Time{}
	defer func() { t.publish(&l) }()
	for ctx.Err() == nil {
		n, err := t.q.Recv(pkts, time.Now().Add(100*time.Millisecond))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		t.mu.Lock()
		if t.linksNew {
			t.ents.SetLinkState(0, t.links[0])
			t.ents.SetLinkState(1, t.links[1])
			t.linksNew = false
		}
		t.mu.Unlock()
		now := t.clock.now()
		for i := range n {
			p := &pkts[i]
			e, snd := t.ents.Sender(p.Payload)
			pdu, to, err := snd.Send(t.buf[:0], p.Payload, now)
			if err != nil {
				t.q.AcceptWithMark(p.ID, topo.MarkLink1)
				continue
			}
			t.ents.Sent(e, to, len(pdu), now)
			// pdcp.Link1 is the second link (links count from 0). Both
			// links: the both-links mark, routed over link1, and the
			// kernel's dup rule copies the PDU to link2.
			switch to {
			case pdcp.Link1:
				t.q.AcceptModified(p.ID, topo.MarkLink2, pdu)
			case pdcp.BothLinks:
				t.q.AcceptModified(p.ID, topo.MarkBoth, pdu)
			default:
				t.q.AcceptModified(p.ID, topo.MarkLink1, pdu)
			}
		}
		if err := t.q.Flush(); err != nil && ctx.Err() == nil {
			return err
		}
		flushed := time.Now()
		for i := range n {
			l.latency.add(flushed, pkts[i].Time)
		}
		if flushed.Sub(lastPublish) > 50*time.Millisecond {
			lastPublish = flushed
			t.publish(&l)
		}
	}
	return nil
}

// txLoop is what the transmit loop counts besides the sender's counters.
type txLoop struct {
	latency VerdictLatency
	queue   QueueStats
}

// publish samples the queue's kernel counters and copies the loop's
// counters for Snapshot and Timing.
func (t *Tx) publish(l *txLoop) {
	st, err := t.q.Stats()
	l.queue.sample(st.Held, st.QueueDropped, st.UserDropped, err)
	t.mu.Lock()
	t.counters, t.latency, t.queue = t.ents.Counters(), l.latency, l.queue
	t.mu.Unlock()
}

// Close releases the queue; Run must have returned.
func (t *Tx) Close() { t.q.Close() }

// run is the receive loop; it owns the queue and the receiver.
func (r *Rx) Run(ctx context.Context) error {
	restore, err := r.thread.lock()
	if err != nil {
		return err
	}
	defer restore()
	pkts := make([]nfq.Packet, 128)
	deliver := r.deliver // one method value for the loop's lifetime: no allocation per packet
	var malformed uint64 // the loop's own; published with the counters
	var queue QueueStats
	lastPublish := time.Time{}
	defer func() { r.publish(malformed, &queue) }()
	for ctx.Err() == nil {
		wake := time.Now().Add(100 * time.Millisecond)
		if d, ok := r.ents.Deadline(); ok && r.clock.start.Add(d).Before(wake) {
			wake = r.clock.start.Add(d)
		}
		n, err := r.q.Recv(pkts, wake)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		now := r.clock.now()
		r.ents.Expire(now, deliver)
		for i := range n {
			p := &pkts[i]
			sn, sdu, err := pdcp.Decap(p.Payload, r.bits)
			if err == nil && len(sdu) > slotSize {
				err = errOversize
			}
			if err != nil {
				if pdcp.IsForeign(err) {
					r.q.Accept(p.ID)
				} else {
					malformed++
					r.q.Drop(p.ID)
				}
				continue
			}
			slot := r.slots.put(sdu)
			switch r.ents.Receive(sn, sdu, pdcp.Handle{ID: p.ID, Aux: slot}, now, deliver) {
			case pdcp.DiscardDuplicate, pdcp.DiscardOld:
				r.slots.free(slot)
				r.q.Drop(p.ID)
			}
		}
		if err := r.q.Flush(); err != nil && ctx.Err() == nil {
			return err
		}
		r.ents.Sample()
		if time.Since(lastPublish) > 50*time.Millisecond {
			lastPublish = time.Now()
			r.publish(malformed, &queue)
		}
	}
	// Deliver what is held, so nothing stays queued in the kernel.
	r.ents.Flush(r.clock.now(), deliver)
	r.q.Flush()
	return nil
}

// publish samples the queue's kernel counters and copies the loop's
// counters for Snapshot and Queue.
func (r *Rx) publish(malformed uint64, queue *QueueStats) {
	st, err := r.q.Stats()
	queue.sample(st.Held, st.QueueDropped, st.UserDropped, err)
	r.mu.Lock()
	r.counters, r.buffer, r.malformed, r.queue = r.ents.Counters(), r.ents.Buffered(), malformed, *queue
	r.mu.Unlock()
}

// Close releases the queue; Run must have returned.
func (r *Rx) Close() { r.q.Close() }

func (r *Rx) deliver(h pdcp.Handle, _ pdcp.Reason) {
	r.q.AcceptModified(h.ID, 0, r.slots.get(h.Aux))
	r.slots.free(h.Aux)
}

// errOversize marks a PDU larger than a slot (GRO merged packets on the
// link, which emu never enables); it is dropped and counted as malformed.
var errOversize = errors.New("pdcp: PDU larger than a receive slot")

// slotPool holds the decapsulated bytes of packets the receiver buffers,
// in fixed slots that grow in chunks and are reused: no allocation per
// packet once the pool has grown to the largest backlog.
type slotPool struct {
	data  []byte
	lens  []uint16
	freeL []uint32
}

const (
	slotSize  = 2048
	slotChunk = 1024
)

func (s *slotPool) put(b []byte) uint32 {
	if len(s.freeL) == 0 {
		base := uint32(len(s.lens))
		s.data = append(s.data, make([]byte, slotChunk*slotSize)...)
		s.lens = append(s.lens, make([]uint16, slotChunk)...)
		for i := uint32(slotChunk); i > 0; i-- {
			s.freeL = append(s.freeL, base+i-1)
		}
	}
	i := s.freeL[len(s.freeL)-1]
	s.freeL = s.freeL[:len(s.freeL)-1]
	n := copy(s.data[int(i)*slotSize:int(i+1)*slotSize], b)
	s.lens[i] = uint16(n)
	return i
}

func (s *slotPool) get(i uint32) []byte {
	return s.data[int(i)*slotSize : int(i)*slotSize+int(s.lens[i])]
}

func (s *slotPool) free(i uint32) { s.freeL = append(s.freeL, i) }

// Snapshot returns the counters the loop last published (every 50 ms and
// when it stops).
func (t *Tx) Snapshot() pdcp.TxCounters {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counters
}

// Timing returns the verdict latency and the queue's kernel counters the
// loop last published.
func (t *Tx) Timing() (VerdictLatency, QueueStats) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.latency, t.queue
}

// Queue returns the queue's kernel counters the loop last published.
func (r *Rx) Queue() QueueStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.queue
}

// Snapshot returns the counters the loop last published, the packets it
// holds and the malformed PDUs it dropped.
func (r *Rx) Snapshot() (pdcp.RxCounters, int, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counters, r.buffer, r.malformed
}
