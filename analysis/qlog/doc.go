// Package qlog reads the qlog files QUIC endpoints write (quic-go's
// JSON-SEQ .sqlog, ngtcp2's NDJSON .qlog; docs/qlog.md) for emu's
// analysis. Its stages: Reader streams records through a fixed window and
// finds their boundaries; a hand-written scanner validates every byte of a
// record; the decoder fills an Event with the few fields the analysis uses
// (packets sent, received and lost, their stream frames and how many
// ACK frames they carry, metrics and congestion state updates)
// and skips the rest.
//
// It is the analysis' hot path: a 100 MB download produces some 80 000
// events per side, and sweeps read hundreds of such files, so nothing is
// allocated per event; encoding/json is used only for headers. A file cut
// short by a killed writer ends in an error wrapping ErrTruncated after
// its complete records; other damage is a *ParseError naming the file,
// line, byte offset and field.
//
// The package is pure: it reads through io.Reader only.
package qlog
