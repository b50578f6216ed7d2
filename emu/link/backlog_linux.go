package link

import (
	"errors"
	"fmt"
)

// BacklogReader reads how many bytes wait in the rate limiters of some
// directions that leave one gateway, with one qdisc dump of its namespace
// (qdiscdump.go): DC flow control's view of its legs' queues, read every
// couple of milliseconds, where Shaper.Stats' class and leaf dumps per
// direction cost ten times the CPU. It is not safe for concurrent use.
type BacklogReader struct {
	dumper  *qdiscDumper
	ifindex []int
	counts  []qdiscCounts
}

// NewBacklogReader returns a reader of dirs' backlogs, in their order; the
// directions must leave the same gateway. Close releases it.
func NewBacklogReader(dirs []*Dir) (*BacklogReader, error) {
	if len(dirs) == 0 {
		return nil, errors.New("link: backlog reader of no direction")
	}
	node := dirs[0].Shaper.node
	r := &BacklogReader{counts: make([]qdiscCounts, len(dirs))}
	for _, d := range dirs {
		if d.Shaper.node != node {
			return nil, fmt.Errorf("link: backlog reader: %s and %s leave different gateways", dirs[0].Name, d.Name)
		}
		r.ifindex = append(r.ifindex, d.Shaper.link.Attrs().Index)
	}
	var err error
	if r.dumper, err = openQdiscDumper(node); err != nil {
		return nil, err
	}
	return r, nil
}

// Read puts each direction's backlog in bytes into out (as long as the
// directions given), as the rate limiter counts them: each packet's
// length with its Ethernet header, a GSO packet as its segments.
func (r *BacklogReader) Read(out []int) error {
	if err := r.dumper.dump(htbHandle, r.ifindex, r.counts); err != nil {
		return err
	}
	for i, c := range r.counts {
		if !c.found {
			return fmt.Errorf("%s: no rate limiter on interface %d", r.dumper.node.NSName, r.ifindex[i])
		}
		out[i] = int(c.Backlog)
	}
	return nil
}

// Close releases the reader's socket.
func (r *BacklogReader) Close() { r.dumper.close() }
