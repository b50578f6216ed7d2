package qlog

import "fmt"

// fieldError names the JSON field in which a record went wrong.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// inField prefixes err with a field name; nested fields join with dots
// ("data.header.packet_number").
func inField(field string, err error) error {
	if err == nil {
		return nil
	}
	if fe, ok := err.(*fieldError); ok {
		return &fieldError{field: field + "." + fe.field, err: fe.err}
	}
	return &fieldError{field: field, err: err}
}

// decodeEvent fills ev from one JSON event record. It reads "time", "name"
// and, for the kinds the analysis uses, the relevant parts of "data"; every
// other byte is validated and skipped. If "data" comes before "name" (legal
// JSON, though no producer here does it) it is decoded after the walk.
func decodeEvent(rec []byte, ev *Event) error {
	ev.reset()
	s := scanner{b: rec}
	var haveTime, haveName bool
	dataStart := -1
	o := s.object()
	for o.next(&s) {
		switch string(o.key) {
		case "time":
			var t float64
			if t, o.err = s.float(); o.err == nil {
				ev.Time, haveTime = t, true
			}
		case "name":
			var name []byte
			if name, o.err = s.stringValue(); o.err == nil {
				ev.Kind, haveName = kindOf(name), true
			}
		case "data":
			if haveName {
				o.err = decodeData(&s, ev)
			} else {
				dataStart = s.pos // decoded after the walk
				o.err = s.skip()
			}
		default:
			o.err = s.skip()
		}
	}
	if err := o.end(); err != nil {
		return err
	}
	if err := s.finish(); err != nil {
		return err
	}
	if !haveName {
		return inField("name", fmt.Errorf("missing: not a qlog event"))
	}
	if !haveTime {
		return inField("time", fmt.Errorf("missing in %s event", ev.Kind))
	}
	if dataStart >= 0 {
		d := scanner{b: rec, pos: dataStart}
		return inField("data", decodeData(&d, ev))
	}
	return nil
}

// decodeData reads the "data" object of an event whose kind is known.
func decodeData(s *scanner, ev *Event) error {
	switch ev.Kind {
	case KindPacketSent, KindPacketReceived, KindPacketLost, KindPacketDropped:
		return decodePacket(s, ev)
	case KindMetricsUpdated:
		return decodeMetrics(s, &ev.Metrics)
	case KindCongestionStateUpdated:
		return decodeState(s, ev)
	default:
		return s.skip()
	}
}

func decodePacket(s *scanner, ev *Event) error {
	o := s.object()
	for o.next(s) {
		switch string(o.key) {
		case "header":
			o.err = decodeHeader(s, ev)
		case "raw":
			o.err = decodeRaw(s, ev)
		case "frames":
			o.err = decodeFrames(s, ev)
		case "trigger":
			var t []byte
			t, o.err = s.stringValue()
			ev.Trigger = intern(t)
		default:
			o.err = s.skip()
		}
	}
	return o.end()
}

func decodeHeader(s *scanner, ev *Event) error {
	o := s.object()
	for o.next(s) {
		switch string(o.key) {
		case "packet_type":
			var t []byte
			t, o.err = s.stringValue()
			ev.PacketType = packetTypeOf(t)
		case "packet_number":
			ev.PacketNumber, o.err = s.int()
		default:
			o.err = s.skip()
		}
	}
	return o.end()
}

func decodeRaw(s *scanner, ev *Event) error {
	o := s.object()
	for o.next(s) {
		if string(o.key) == "length" {
			ev.Length, o.err = s.int()
		} else {
			o.err = s.skip()
		}
	}
	return o.end()
}

// decodeFrames keeps the stream frames, counts the ACK frames and skips
// all others.
func decodeFrames(s *scanner, ev *Event) error {
	a := s.array()
	for a.next(s) {
		a.err = decodeFrame(s, ev)
	}
	return a.err
}

func decodeFrame(s *scanner, ev *Event) error {
	var f StreamFrame
	isStream := false
	o := s.object()
	for o.next(s) {
		switch string(o.key) {
		case "frame_type":
			var t []byte
			t, o.err = s.stringValue()
			isStream = string(t) == "stream"
			if string(t) == "ack" {
				ev.AckFrames++
			}
		case "stream_id":
			f.StreamID, o.err = s.int()
		case "offset":
			f.Offset, o.err = s.int()
		case "length":
			f.Length, o.err = s.int()
		case "fin":
			f.Fin, o.err = s.boolean()
		default:
			o.err = s.skip()
		}
	}
	if err := o.end(); err != nil {
		return err
	}
	if isStream {
		if f.Offset < 0 || f.Length < 0 {
			return fmt.Errorf("stream frame with negative offset %d or length %d", f.Offset, f.Length)
		}
		ev.Frames = append(ev.Frames, f)
	}
	return nil
}

func decodeMetrics(s *scanner, m *Metrics) error {
	o := s.object()
	for o.next(s) {
		bit, f, i := metricSlot(m, o.key)
		switch {
		case f != nil:
			*f, o.err = s.float()
		case i != nil:
			*i, o.err = s.int()
		default:
			o.err = s.skip()
		}
		if o.err == nil {
			m.Has |= bit
		}
	}
	return o.end()
}

// metricSlot says where the value of the metrics_updated field key goes, f
// for the RTTs (floats) or i for the sizes and counts (integers), and the
// bit that marks it present; a field the analysis does not read has none.
func metricSlot(m *Metrics, key []byte) (bit MetricField, f *float64, i *int64) {
	switch string(key) {
	case "min_rtt":
		return HasMinRTT, &m.MinRTT, nil
	case "smoothed_rtt":
		return HasSmoothedRTT, &m.SmoothedRTT, nil
	case "latest_rtt":
		return HasLatestRTT, &m.LatestRTT, nil
	case "rtt_variance":
		return HasRTTVariance, &m.RTTVariance, nil
	case "congestion_window":
		return HasCongestionWindow, nil, &m.CongestionWindow
	case "bytes_in_flight":
		return HasBytesInFlight, nil, &m.BytesInFlight
	case "packets_in_flight":
		return HasPacketsInFlight, nil, &m.PacketsInFlight
	case "ssthresh":
		return HasSSThresh, nil, &m.SSThresh
	case "pto_count":
		return HasPTOCount, nil, &m.PTOCount
	}
	return 0, nil, nil
}

func decodeState(s *scanner, ev *Event) error {
	o := s.object()
	for o.next(s) {
		if string(o.key) == "new" {
			var st []byte
			st, o.err = s.stringValue()
			ev.State = intern(st)
		} else {
			o.err = s.skip()
		}
	}
	return o.end()
}

// boolean consumes true or false.
func (s *scanner) boolean() (bool, error) {
	if s.pos >= len(s.b) {
		return false, s.end()
	}
	switch s.b[s.pos] {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, s.fail("expected true or false, found %s", s.describe())
}
