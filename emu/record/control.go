package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// requestTag names a recording request, so that a far end refuses
// anything else that reaches its port (an HTTP request, a port scan).
const requestTag = "emu record"

// maxControlLine bounds one control message; the far end's bins for a
// long recording are the largest.
const maxControlLine = 256 << 20

// request is the near end's first control message.
type request struct {
	Tag        string `json:"recording"`
	Version    int    `json:"version"`
	Session    uint32 `json:"session"`
	Path       int    `json:"path"` // 1 or 2
	DurationMs int64  `json:"duration_ms"`
	Packet     int    `json:"packet_bytes"` // IP bytes of a load packet
	MaxRate    uint64 `json:"max_rate_bps"`
}

// check refuses what is not a recording request this far end can serve.
func (r *request) check() error {
	switch {
	case r.Tag != requestTag:
		return errors.New("not a recording request")
	case r.Version != Version:
		return fmt.Errorf("protocol version %d, this far end speaks %d", r.Version, Version)
	case r.DurationMs <= 0 || r.DurationMs > int64(MaxDuration/time.Millisecond):
		return fmt.Errorf("duration %d ms outside (0, %v]", r.DurationMs, MaxDuration)
	case r.Packet < minPacket || r.Packet > maxPacket:
		return fmt.Errorf("packet size %d outside [%d, %d]", r.Packet, minPacket, maxPacket)
	case r.MaxRate == 0:
		return errors.New("no maximum rate")
	}
	return nil
}

// reply answers a request, a ping or the end of a recording.
type reply struct {
	Error   string `json:"error,omitempty"`
	UDPPort int    `json:"udp_port,omitempty"`
	BootID  string `json:"boot_id,omitempty"` // same kernel, same clock
	Host    string `json:"host,omitempty"`
	Seen    bool   `json:"hello_seen,omitempty"` // the near end's UDP address is known

	Ping int64 `json:"ping,omitempty"` // the near end's stamp, echoed
	Now  int64 `json:"now,omitempty"`  // the far end's clock when it answered

	Up     *Bins       `json:"up,omitempty"`     // what the far end received
	Sender *SenderStat `json:"sender,omitempty"` // how the far end's sender fared
}

// message is what the near end sends after the request.
type message struct {
	Ping  int64 `json:"ping,omitempty"`
	Hello bool  `json:"hello,omitempty"` // has the far end seen my UDP?
	// Start is when the recording starts, on the far end's clock; the
	// streams begin Warmup before it.
	Start int64 `json:"start_ns,omitempty"`
	Done  bool  `json:"done,omitempty"`
}

// conn is one end of a control connection: JSON lines.
type conn struct {
	r *bufio.Reader
	w io.Writer
}

func newConn(rw io.ReadWriter) *conn {
	return &conn{r: bufio.NewReaderSize(rw, 64<<10), w: rw}
}

func (c *conn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// recv reads one JSON line into v, refusing a line over maxControlLine.
func (c *conn) recv(v any) error {
	var line []byte
	for {
		part, err := c.r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxControlLine {
			return fmt.Errorf("control message over %d bytes", maxControlLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		break
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("control message: %w", err)
	}
	return nil
}
