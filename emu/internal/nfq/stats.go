package nfq

import (
	"bytes"
	"fmt"
	"strconv"
)

// parseProcStats finds queue num in the text of
// /proc/net/netfilter/nfnetlink_queue, whose lines are
//
//	queue_num peer_portid queue_total copy_mode copy_range queue_dropped user_dropped id_sequence 1
//
// and fills the kernel's fields of st.
func parseProcStats(text []byte, num uint16, st *Stats) error {
	for line := range bytes.SplitSeq(text, []byte("\n")) {
		var f [9][]byte
		n := 0
		for field := range bytes.FieldsSeq(line) {
			if n == len(f) {
				break
			}
			f[n] = field
			n++
		}
		if n < 8 {
			continue
		}
		qn, err := strconv.ParseUint(string(f[0]), 10, 16)
		if err != nil || uint16(qn) != num {
			continue
		}
		var v [8]uint32
		for _, i := range []int{2, 5, 6, 7} {
			x, err := strconv.ParseUint(string(f[i]), 10, 32)
			if err != nil {
				return fmt.Errorf("nfq: queue statistics: field %d %q: %w", i+1, f[i], err)
			}
			v[i] = uint32(x)
		}
		st.Held, st.QueueDropped, st.UserDropped, st.IDSequence = v[2], v[5], v[6], v[7]
		return nil
	}
	return fmt.Errorf("nfq: queue statistics: queue %d not listed", num)
}
