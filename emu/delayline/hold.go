package delayline

// held is one packet waiting for its verdict.
type held struct {
	due  int64 // ns since the line's epoch
	id   uint32
	size uint32
	lost bool
}

// ring is a FIFO of held packets. It grows by doubling when full, so it
// allocates only while the backlog reaches a new maximum.
type ring struct {
	buf        []held
	head, size int
}

func (r *ring) push(h held) {
	if r.size == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.size)&(len(r.buf)-1)] = h
	r.size++
}

func (r *ring) front() *held { return &r.buf[r.head] }

func (r *ring) pop() {
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.size--
}

func (r *ring) grow() {
	n := max(1024, 2*len(r.buf))
	b := make([]held, n)
	for i := range r.size {
		b[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = b, 0
}

// minHeap orders held packets by due time, then by arrival (id order is
// arrival order; ties keep it, so equal delays do not reorder).
type minHeap struct {
	h   []held
	seq []uint64 // arrival index of each entry, for ties
	n   uint64
}

func (m *minHeap) less(i, j int) bool {
	if m.h[i].due != m.h[j].due {
		return m.h[i].due < m.h[j].due
	}
	return m.seq[i] < m.seq[j]
}

func (m *minHeap) swap(i, j int) {
	m.h[i], m.h[j] = m.h[j], m.h[i]
	m.seq[i], m.seq[j] = m.seq[j], m.seq[i]
}

func (m *minHeap) push(e held) {
	m.h = append(m.h, e)
	m.seq = append(m.seq, m.n)
	m.n++
	for i := len(m.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !m.less(i, p) {
			break
		}
		m.swap(i, p)
		i = p
	}
}

func (m *minHeap) len() int   { return len(m.h) }
func (m *minHeap) min() *held { return &m.h[0] }
func (m *minHeap) pop() {
	last := len(m.h) - 1
	m.swap(0, last)
	m.h, m.seq = m.h[:last], m.seq[:last]
	for i := 0; ; {
		l, r, s := 2*i+1, 2*i+2, i
		if l < last && m.less(l, s) {
			s = l
		}
		if r < last && m.less(r, s) {
			s = r
		}
		if s == i {
			return
		}
		m.swap(i, s)
		i = s
	}
}
