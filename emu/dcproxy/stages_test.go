package dcproxy

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/dc-emu/emu/pdcp"
)

// segments returns n buffers, each with a segment of size bytes at
// [headroom:] whose first 8 bytes are its index: what a TUN read gives.
func segments(n, size int) ([][]byte, []int) {
	bufs, sizes := make([][]byte, n), make([]int, n)
	for i := range bufs {
		bufs[i] = make([]byte, bufSize)
		binary.BigEndian.PutUint64(bufs[i][headroom:], uint64(i))
		sizes[i] = size
	}
	return bufs, sizes
}

func mustTx(t testing.TB, bits int, cfg pdcp.SchedulerConfig) *Tx {
	t.Helper()
	s, err := pdcp.NewScheduler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := NewTx(bits, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func mustRx(t testing.TB, bits int, tReordering time.Duration) *Rx {
	t.Helper()
	rx, err := NewRx(bits, tReordering, headroom)
	if err != nil {
		t.Fatal(err)
	}
	return rx
}

// TestPackNumbersAndGroups: each segment gets the next COUNT in a header
// written in its headroom, the groups follow the scheduler (batches of 4
// split 1:1), a duplicated PDU is the same bytes in both groups, and the
// next batch carries on the numbering.
func TestPackNumbersAndGroups(t *testing.T) {
	tx := mustTx(t, pdcp.SNBits12, pdcp.SchedulerConfig{Batch: 4})
	bufs, sizes := segments(10, 1400)
	g, _ := tx.Pack(bufs, sizes, headroom, 0)
	if len(g[0])+len(g[1]) != 10 || len(g[0]) == 0 || len(g[1]) == 0 {
		t.Fatalf("groups of %d and %d PDUs for 10 segments", len(g[0]), len(g[1]))
	}
	var sns []uint32
	for l := range 2 {
		for _, pdu := range g[l] {
			if len(pdu) != 2+1400 {
				t.Fatalf("PDU of %d bytes, want header + 1400", len(pdu))
			}
			sn, sdu, err := pdcp.ParseHeader(pdu, pdcp.SNBits12)
			if err != nil {
				t.Fatal(err)
			}
			if idx := binary.BigEndian.Uint64(sdu); uint32(idx) != sn {
				t.Errorf("segment %d carries SN %d", idx, sn)
			}
			sns = append(sns, sn)
		}
	}
	slices.Sort(sns)
	for i, sn := range sns {
		if sn != uint32(i) {
			t.Fatalf("SNs %v, want 0..9 once each", sns)
		}
	}
	// Duplicate: the same bytes on both links, numbering going on.
	dup := mustTx(t, pdcp.SNBits18, pdcp.SchedulerConfig{Kind: pdcp.KindDuplicate})
	dup.Pack(bufs[:3], sizes[:3], headroom, 0)
	bufs2, sizes2 := segments(2, 100)
	g, _ = dup.Pack(bufs2, sizes2, headroom, 0)
	if len(g[0]) != 2 || len(g[1]) != 2 || &g[0][1][0] != &g[1][1][0] {
		t.Fatalf("duplicate groups %d, %d PDUs, not the same bytes", len(g[0]), len(g[1]))
	}
	if sn, _, _ := pdcp.ParseHeader(g[1][1], pdcp.SNBits18); sn != 4 {
		t.Errorf("second batch's second PDU has SN %d, want 4", sn)
	}
	if c := dup.Counters(); c.PDUs != 5 || c.Link != [2]uint64{5, 5} {
		t.Errorf("duplicate counters %+v", c)
	}
}

func TestBurstLen(t *testing.T) {
	g := [][]byte{make([]byte, 1000), make([]byte, 1000), make([]byte, 1000), make([]byte, 500)}
	for _, c := range []struct{ max, want int }{{0, 4}, {1, 1}, {999, 1}, {1000, 1}, {2000, 2}, {2999, 2}, {3500, 4}, {1 << 20, 4}} {
		if got := burstLen(g, c.max); got != c.want {
			t.Errorf("burstLen(4 PDUs, %d) = %d, want %d", c.max, got, c.want)
		}
	}
	if got := burstLen(nil, 100); got != 0 {
		t.Errorf("burstLen(none) = %d", got)
	}
}

// arrivals is a receive batch: datagrams at [headroom:], as a GRO read
// gives them.
func arrivals(pdus [][]byte) ([][]byte, []int) {
	bufs, sizes := make([][]byte, len(pdus)), make([]int, len(pdus))
	for i, p := range pdus {
		bufs[i] = make([]byte, bufSize)
		sizes[i] = copy(bufs[i][headroom:], p)
	}
	return bufs, sizes
}

// sduIndex reads the segment index at the start of an SDU written at
// [headroom:].
func sduIndex(out []byte) uint64 { return binary.BigEndian.Uint64(out[headroom:]) }

// TestPackPlaceRoundTrip sends batches through Pack, delays each link's
// PDUs by its own random amount per batch (so the links overtake each
// other), cuts what arrives into receive batches at random, and checks
// that Place hands every SDU to the TUN once, in order, with only the
// held ones copied, and that slots are reused.
func TestPackPlaceRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []int{pdcp.SNBits12, pdcp.SNBits18} {
		for _, kind := range []string{pdcp.KindBatch, pdcp.KindWeighted, pdcp.KindDuplicate} {
			tx := mustTx(t, bits, pdcp.SchedulerConfig{Kind: kind, Batch: 7})
			rx := mustRx(t, bits, time.Second)
			type arrival struct {
				at  float64
				pdu []byte
			}
			var air []arrival
			next := 0
			for b := range 300 {
				n := 1 + rng.IntN(40)
				bufs, sizes := segments(n, 64+rng.IntN(1400))
				for i := range bufs {
					binary.BigEndian.PutUint64(bufs[i][headroom:], uint64(next+i))
				}
				next += n
				g, _ := tx.Pack(bufs, sizes, headroom, 0)
				for l := range 2 {
					at := float64(b) + 5*rng.Float64()
					for _, p := range g[l] {
						air = append(air, arrival{at, bytes.Clone(p)})
						at += 0.001
					}
				}
			}
			slices.SortStableFunc(air, func(a, b arrival) int {
				if a.at < b.at {
					return -1
				}
				if a.at > b.at {
					return 1
				}
				return 0
			})
			var got []uint64
			for len(air) > 0 {
				n := min(len(air), 1+rng.IntN(64))
				var pdus [][]byte
				for _, a := range air[:n] {
					pdus = append(pdus, a.pdu)
				}
				air = air[n:]
				bufs, sizes := arrivals(pdus)
				for _, o := range rx.Place(bufs, sizes, 0) {
					got = append(got, sduIndex(o))
				}
				rx.Done()
			}
			for i, g := range got {
				if g != uint64(i) {
					t.Fatalf("%d bits, %s: SDU %d is segment %d; want every segment once, in order", bits, kind, i, g)
				}
			}
			c := rx.Counters()
			if len(got) != next || c.GivenUp != 0 || rx.Held() != 0 {
				t.Fatalf("%d bits, %s: %d of %d segments out, %+v", bits, kind, len(got), next, c)
			}
			if kind == pdcp.KindDuplicate && c.DuplicatesDiscarded != uint64(next) {
				t.Errorf("%s: %d duplicates discarded, want %d", kind, c.DuplicatesDiscarded, next)
			}
			// A slot released during a batch is free again after its
			// write (Done): at most a receive batch more than were held.
			if len(rx.slots) > c.MaxBuffered+64 {
				t.Errorf("%d bits, %s: %d slots for at most %d held: slots not reused", bits, kind, len(rx.slots), c.MaxBuffered)
			}
			t.Logf("%d bits, %s: %d segments, %d reordered, %d held at most, %d slots", bits, kind, next, c.Reordered, c.MaxBuffered, len(rx.slots))
		}
	}
}

// TestPlaceExpiresAndCounts: a hole is given up when t-Reordering expires,
// and the held SDUs behind it come out then; a short or control datagram is
// counted as malformed and dropped.
func TestPlaceExpiresAndCounts(t *testing.T) {
	const tReor = 10 * time.Millisecond
	tx := mustTx(t, pdcp.SNBits18, pdcp.SchedulerConfig{Kind: pdcp.KindActiveStandby})
	rx := mustRx(t, pdcp.SNBits18, tReor)
	bufs, sizes := segments(4, 200)
	g, _ := tx.Pack(bufs, sizes, headroom, 0)
	all := g[0]
	if len(all) != 4 {
		t.Fatalf("active-standby sent %d of 4 on link 0", len(all))
	}
	// COUNT 1 lost; 0, 2, 3 arrive with a malformed datagram and a
	// control PDU among them.
	in, insz := arrivals([][]byte{all[0], {0x80}, all[2], {0x00, 0x01, 0x02, 0x03}, all[3]})
	out := rx.Place(in, insz, time.Millisecond)
	if len(out) != 1 || sduIndex(out[0]) != 0 {
		t.Fatalf("first batch released %d SDUs, want segment 0 only", len(out))
	}
	rx.Done()
	if rx.Malformed != 2 || rx.Held() != 2 {
		t.Fatalf("malformed %d (want 2), held %d (want 2)", rx.Malformed, rx.Held())
	}
	d, ok := rx.Deadline()
	if !ok || d != time.Millisecond+tReor {
		t.Fatalf("deadline %v %v, want %v", d, ok, time.Millisecond+tReor)
	}
	if out := rx.Expire(d - 1); len(out) != 0 {
		t.Fatalf("expiry before the deadline released %d", len(out))
	}
	rx.Done()
	out = rx.Expire(d)
	if len(out) != 2 || sduIndex(out[0]) != 2 || sduIndex(out[1]) != 3 {
		t.Fatalf("expiry released %d SDUs, want segments 2 and 3", len(out))
	}
	for _, o := range out {
		if len(o) != headroom+200 {
			t.Errorf("held SDU written as %d bytes, want headroom + 200", len(o))
		}
	}
	rx.Done()
	if c := rx.Counters(); c.GivenUp != 1 || c.DeliveredOnExpiry != 2 || c.Delivered != 3 {
		t.Errorf("counters %+v", c)
	}
}

// TestPlaceAllocatesNothing: once its slots exist, a receive batch with
// reordering allocates nothing, nor does Pack.
func TestPlaceAllocatesNothing(t *testing.T) {
	tx := mustTx(t, pdcp.SNBits18, pdcp.SchedulerConfig{Batch: 8})
	rx := mustRx(t, pdcp.SNBits18, time.Second)
	bufs, sizes := segments(64, 1400)
	in, insz := make([][]byte, 64), make([]int, 64)
	for i := range in {
		in[i] = make([]byte, bufSize)
	}
	step := func() {
		g, _ := tx.Pack(bufs, sizes, headroom, 0)
		// Link 1's PDUs first: each batch of link 0 is held behind them.
		n := 0
		for _, l := range []int{1, 0} {
			for _, p := range g[l] {
				insz[n] = copy(in[n][headroom:], p)
				n++
			}
		}
		rx.Place(in[:n], insz[:n], 0)
		rx.Done()
	}
	step()
	if a := testing.AllocsPerRun(100, step); a != 0 {
		t.Errorf("%.1f allocations per batch of 64", a)
	}
	if c := rx.Counters(); c.Held == 0 || c.GivenUp != 0 {
		t.Errorf("nothing held, or holes: %+v", c)
	}
}

// BenchmarkPack is the transmit stage per wire segment: COUNT, header,
// grouping.
func BenchmarkPack(b *testing.B) {
	tx := mustTx(b, pdcp.SNBits18, pdcp.DefaultSchedulerConfig())
	bufs, sizes := segments(64, 1448)
	b.ReportAllocs()
	for b.Loop() {
		tx.Pack(bufs, sizes, headroom, 0)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/PDU")
}

// BenchmarkPlace is the receive stage per PDU, in order and with each
// link's half of a batch arriving the wrong way round (half the PDUs held
// and copied).
func BenchmarkPlace(b *testing.B) {
	for _, swapped := range []bool{false, true} {
		name := "in-order"
		if swapped {
			name = "reordered"
		}
		b.Run(name, func(b *testing.B) {
			tx := mustTx(b, pdcp.SNBits18, pdcp.SchedulerConfig{Batch: 64})
			rx := mustRx(b, pdcp.SNBits18, time.Second)
			bufs, sizes := segments(64, 1448)
			in, insz := make([][]byte, 64), make([]int, 64)
			for i := range in {
				in[i] = make([]byte, bufSize)
			}
			order := []int{0, 1}
			if swapped {
				order = []int{1, 0}
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				g, _ := tx.Pack(bufs, sizes, headroom, 0)
				n := 0
				for _, l := range order {
					for _, p := range g[l] {
						insz[n] = copy(in[n][headroom:], p)
						n++
					}
				}
				b.StartTimer()
				rx.Place(in[:n], insz[:n], 0)
				rx.Done()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/PDU")
		})
	}
}

// TestSteeredFlowsHaveTheirOwnEntities: packets of a steered flow (server
// port 4434) are numbered by an entity of their own, with its own
// scheduler (duplicate), and the receiving end finds that entity from the
// SDU, so both flows' SNs, which overlap, come out complete and in order.
func TestSteeredFlowsHaveTheirOwnEntities(t *testing.T) {
	rules := []pdcp.SteerRule{{Port: 4434, Sched: pdcp.SchedulerConfig{Kind: pdcp.KindDuplicate}}}
	tx := mustTx(t, pdcp.SNBits12, pdcp.SchedulerConfig{Batch: 4})
	rx := mustRx(t, pdcp.SNBits12, time.Second)
	if err := tx.Steer(rules); err != nil {
		t.Fatal(err)
	}
	if err := rx.Steer(rules); err != nil {
		t.Fatal(err)
	}
	// Even indices: the steered flow's downlink (source port 4434); odd:
	// another flow's.
	const n = 40
	bufs, sizes := make([][]byte, n), make([]int, n)
	for i := range bufs {
		b := make([]byte, bufSize)
		p := b[headroom:]
		p[0], p[9] = 0x45, 17
		src := uint16(8443)
		if i%2 == 0 {
			src = 4434
		}
		binary.BigEndian.PutUint16(p[20:], src)
		binary.BigEndian.PutUint16(p[22:], 40000)
		binary.BigEndian.PutUint64(p[24:], uint64(i))
		bufs[i], sizes[i] = b, 100
	}
	g, _ := tx.Pack(bufs, sizes, headroom, 0)
	if c := tx.Counters(); c.PDUs != n || c.Link[0]+c.Link[1] != n+n/2 {
		t.Fatalf("tx counters %+v: want %d PDUs, the steered flow's %d on both links", c, n, n/2)
	}
	// Link 1 first, then link 0: every PDU of entity 0 on link 0 waits
	// for link 1's; the steered flow's copies arrive twice.
	var pdus [][]byte
	for _, l := range []int{1, 0} {
		for _, p := range g[l] {
			pdus = append(pdus, bytes.Clone(p))
		}
	}
	in, insz := arrivals(pdus)
	var steered, other []uint64
	for _, o := range rx.Place(in, insz, 0) {
		idx := binary.BigEndian.Uint64(o[headroom+24:])
		if idx%2 == 0 {
			steered = append(steered, idx)
		} else {
			other = append(other, idx)
		}
	}
	rx.Done()
	for k, list := range [][]uint64{steered, other} {
		if len(list) != n/2 || !slices.IsSorted(list) {
			t.Errorf("flow %d: SDUs %v, want %d in order", k, list, n/2)
		}
	}
	if c := rx.Counters(); c.DuplicatesDiscarded != n/2 || c.GivenUp != 0 || rx.Held() != 0 {
		t.Errorf("rx counters %+v: want the steered flow's %d copies discarded, nothing given up or held", c, n/2)
	}
}

// TestBurstFor: a send carries a millisecond of the link's rate, at most
// 64 KB, and one full-size PDU where a millisecond holds less: a send is
// one skb, which a full queue drops whole.
func TestBurstFor(t *testing.T) {
	pdus := [][]byte{make([]byte, 1502), make([]byte, 1502), make([]byte, 1502)}
	for _, c := range []struct {
		rate float64
		pdus int
	}{{0, 1}, {7e6, 1}, {20e6, 1}, {24.1e6, 2}, {36.1e6, 3}, {100e9, 3}} {
		if got := burstLen(pdus, burstFor(c.rate)); got != c.pdus {
			t.Errorf("%.0f bit/s: a send of %d full-size PDUs, want %d", c.rate, got, c.pdus)
		}
	}
	if got := burstFor(100e9); got != 64<<10 {
		t.Errorf("burstFor(100 Gbit/s) = %d, want 64 KB", got)
	}
}
