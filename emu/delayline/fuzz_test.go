package delayline

import (
	"testing"
	"time"
)

// model checks a Line's verdicts against the packets it was given: each id
// gets exactly one verdict, a lost one is only ever dropped, and a batch
// verdict never covers a lost id that was not dropped before it.
type model struct {
	t       *testing.T
	pending map[uint32]bool // id → lost
}

func (m *model) AcceptUpTo(id uint32) {
	n := 0
	for p, lost := range m.pending {
		if p <= id {
			if lost {
				m.t.Fatalf("AcceptUpTo(%d) covers lost packet %d before its drop", id, p)
			}
			delete(m.pending, p)
			n++
		}
	}
	if n == 0 {
		m.t.Fatalf("AcceptUpTo(%d) accepts nothing", id)
	}
}

func (m *model) Accept(id uint32) {
	lost, ok := m.pending[id]
	if !ok || lost {
		m.t.Fatalf("Accept(%d): pending %v, lost %v", id, ok, lost)
	}
	delete(m.pending, id)
}

func (m *model) Drop(id uint32) {
	lost, ok := m.pending[id]
	if !ok || !lost {
		m.t.Fatalf("Drop(%d): pending %v, lost %v", id, ok, lost)
	}
	delete(m.pending, id)
}

// FuzzLine runs operation sequences (3 bytes each: what, time step, value)
// through a Line and checks its verdicts against the model.
func FuzzLine(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 1, 0, 1, 50, 0, 2, 0, 200, 0, 1, 0, 1, 100, 0})
	f.Add([]byte{2, 0, 255, 0, 5, 0, 0, 5, 0, 2, 0, 3, 0, 5, 0, 1, 9, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		l, err := New(1, Params{Delay: time.Millisecond, Jitter: 300 * time.Microsecond, Loss: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		m := &model{t: t, pending: map[uint32]bool{}}
		now := t0
		id := uint32(0)
		for len(ops) >= 3 {
			op, step, v := ops[0], ops[1], ops[2]
			ops = ops[3:]
			now = now.Add(time.Duration(step) * 20 * time.Microsecond)
			switch op % 3 {
			case 0:
				lost := l.Arrive(now, id, uint32(v))
				m.pending[id] = lost
				id++
			case 1:
				next, ok := l.Release(now, m)
				if ok && !next.After(now) {
					t.Fatalf("Release at %v left a packet due at %v", now.Sub(t0), next.Sub(t0))
				}
				if ok != (len(m.pending) > 0) {
					t.Fatalf("Release says held=%v with %d pending", ok, len(m.pending))
				}
			case 2:
				p := Params{
					Delay:   time.Duration(v%8) * 500 * time.Microsecond,
					Jitter:  time.Duration(v/8%4) * 400 * time.Microsecond,
					Loss:    float64(v%5) / 10,
					Reorder: v&0x80 != 0,
				}
				if err := l.SetParams(p); err != nil {
					t.Fatal(err)
				}
			}
		}
		l.ReleaseAll(m)
		if len(m.pending) != 0 || l.Held() != 0 {
			t.Fatalf("after ReleaseAll: %d without a verdict, %d held", len(m.pending), l.Held())
		}
		s := l.Counters().Snapshot()
		if s.Backlog != 0 || s.BacklogBytes != 0 || s.In != uint64(id) {
			t.Fatalf("counters %+v after %d arrivals", s, id)
		}
	})
}
