package analysis

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
	if err := s.beginObject(); err != nil {
		return err
	}
	var haveTime, haveName bool
	dataStart := -1
	first := true
	for {
		key, ok, err := s.member(&first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(key) {
		case "time":
			t, err := s.float()
			if err != nil {
				return inField("time", err)
			}
			ev.Time, haveTime = t, true
		case "name":
			name, err := s.stringValue()
			if err != nil {
				return inField("name", err)
			}
			ev.Kind, haveName = kindOf(name), true
		case "data":
			if !haveName {
				dataStart = s.pos
				if err := s.skip(); err != nil {
					return inField("data", err)
				}
				continue
			}
			if err := decodeData(&s, ev); err != nil {
				return err
			}
		default:
			if err := s.skip(); err != nil {
				return inField(string(key), err)
			}
		}
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
		if err := decodeData(&d, ev); err != nil {
			return err
		}
	}
	return nil
}

// decodeData reads the "data" object of an event whose kind is known.
func decodeData(s *scanner, ev *Event) error {
	switch ev.Kind {
	case KindPacketSent, KindPacketReceived, KindPacketLost, KindPacketDropped:
		return inField("data", decodePacket(s, ev))
	case KindMetricsUpdated:
		return inField("data", decodeMetrics(s, &ev.Metrics))
	case KindCongestionStateUpdated:
		return inField("data", decodeState(s, ev))
	default:
		return inField("data", s.skip())
	}
}

func decodePacket(s *scanner, ev *Event) error {
	if err := s.beginObject(); err != nil {
		return err
	}
	first := true
	for {
		key, ok, err := s.member(&first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch string(key) {
		case "header":
			err = inField("header", decodeHeader(s, ev))
		case "raw":
			err = inField("raw", decodeRaw(s, ev))
		case "frames":
			err = inField("frames", decodeFrames(s, ev))
		case "trigger":
			var t []byte
			t, err = s.stringValue()
			ev.Trigger = intern(t)
			err = inField("trigger", err)
		default:
			if e := s.skip(); e != nil {
				err = inField(string(key), e)
			}
		}
		if err != nil {
			return err
		}
	}
}

func decodeHeader(s *scanner, ev *Event) error {
	if err := s.beginObject(); err != nil {
		return err
	}
	first := true
	for {
		key, ok, err := s.member(&first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch string(key) {
		case "packet_type":
			var t []byte
			t, err = s.stringValue()
			ev.PacketType = packetTypeOf(t)
			err = inField("packet_type", err)
		case "packet_number":
			ev.PacketNumber, err = s.int()
			err = inField("packet_number", err)
		default:
			if e := s.skip(); e != nil {
				err = inField(string(key), e)
			}
		}
		if err != nil {
			return err
		}
	}
}

func decodeRaw(s *scanner, ev *Event) error {
	if err := s.beginObject(); err != nil {
		return err
	}
	first := true
	for {
		key, ok, err := s.member(&first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if string(key) == "length" {
			ev.Length, err = s.int()
			err = inField("length", err)
		} else {
			if e := s.skip(); e != nil {
				err = inField(string(key), e)
			}
		}
		if err != nil {
			return err
		}
	}
}

// decodeFrames keeps the stream frames and skips all others.
func decodeFrames(s *scanner, ev *Event) error {
	if err := s.beginArray(); err != nil {
		return err
	}
	first := true
	for {
		ok, err := s.element(&first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if err := decodeFrame(s, ev); err != nil {
			return err
		}
	}
}

func decodeFrame(s *scanner, ev *Event) error {
	if err := s.beginObject(); err != nil {
		return err
	}
	var f StreamFrame
	isStream := false
	first := true
	for {
		key, ok, err := s.member(&first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(key) {
		case "frame_type":
			var t []byte
			t, err = s.stringValue()
			isStream = string(t) == "stream"
			err = inField("frame_type", err)
		case "stream_id":
			f.StreamID, err = s.int()
			err = inField("stream_id", err)
		case "offset":
			f.Offset, err = s.int()
			err = inField("offset", err)
		case "length":
			f.Length, err = s.int()
			err = inField("length", err)
		case "fin":
			f.Fin, err = s.boolean()
			err = inField("fin", err)
		default:
			if e := s.skip(); e != nil {
				err = inField(string(key), e)
			}
		}
		if err != nil {
			return err
		}
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
	if err := s.beginObject(); err != nil {
		return err
	}
	first := true
	for {
		key, ok, err := s.member(&first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		var bit MetricField
		switch string(key) {
		case "min_rtt":
			bit = HasMinRTT
			m.MinRTT, err = s.float()
		case "smoothed_rtt":
			bit = HasSmoothedRTT
			m.SmoothedRTT, err = s.float()
		case "latest_rtt":
			bit = HasLatestRTT
			m.LatestRTT, err = s.float()
		case "rtt_variance":
			bit = HasRTTVariance
			m.RTTVariance, err = s.float()
		case "congestion_window":
			bit = HasCongestionWindow
			m.CongestionWindow, err = s.int()
		case "bytes_in_flight":
			bit = HasBytesInFlight
			m.BytesInFlight, err = s.int()
		case "packets_in_flight":
			bit = HasPacketsInFlight
			m.PacketsInFlight, err = s.int()
		case "ssthresh":
			bit = HasSSThresh
			m.SSThresh, err = s.int()
		case "pto_count":
			bit = HasPTOCount
			m.PTOCount, err = s.int()
		default:
			err = s.skip()
		}
		if err != nil {
			return inField(string(key), err)
		}
		m.Has |= bit
	}
}

func decodeState(s *scanner, ev *Event) error {
	if err := s.beginObject(); err != nil {
		return err
	}
	first := true
	for {
		key, ok, err := s.member(&first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if string(key) == "new" {
			var st []byte
			st, err = s.stringValue()
			ev.State = intern(st)
			err = inField("new", err)
		} else {
			if e := s.skip(); e != nil {
				err = inField(string(key), e)
			}
		}
		if err != nil {
			return err
		}
	}
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
