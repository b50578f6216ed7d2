// Package tracefmt reads, transforms and writes bandwidth traces. Every
// format becomes one in-memory model, a Trace: a piecewise-constant schedule
// of downlink and uplink capacity (optionally one-way delay and loss, each
// either shared by both directions or given per direction), so the trace
// player, the CLI and the analysis code never care where a trace came from.
//
// Readers (Read, ReadFile; Detect guesses the format from content):
//
//   - FormatRaca: the G-NetTrack CSV of the Raca et al. 4G (MMSys 2018) and
//     5G (MMSys 2020) datasets. DL_bitrate and UL_bitrate (kbit/s) are found
//     by header name. By default each row lasts one second, ignoring
//     Timestamp, which is how the dataset authors replay it (goDASHbed); with
//     ReadOptions.Timestamps each distinct timestamp's first row holds until
//     the next distinct timestamp and the last timestamp ends the trace. A
//     missing value ("-") holds the previous value (0 before the first one).
//     Rows of 0 are outages and are kept.
//   - FormatMahimahi: mm-link delivery opportunities, one millisecond offset
//     per line, each one 1500-byte packet. Packets are counted in windows
//     (ReadOptions.Window, 10 ms by default) to give rates; the trace lasts
//     until the last timestamp, mm-link's loop period. Uplink and downlink
//     are separate files: ReadOptions.Up (or UpPath) adds the uplink; a lone
//     file fills Down.
//   - FormatCSV: emu's plain CSV, "time_s,down_mbps[,up_mbps[,delay_ms[,loss]]]"
//     with an optional header (see readCSV for the rules); a header may
//     instead give each direction its delay (down_delay_ms, up_delay_ms) and
//     its loss (down_loss, up_loss). WriteCSV writes it.
//   - FormatCooked: the two-column "cooked" traces of ABR research
//     (Pensieve): seconds and Mbit/s separated by white space, sample-and-hold,
//     the last line's time ends the trace.
//   - FormatColumns: any CSV whose time and rate columns the caller names,
//     with units (Lumos5G, 5Gophers and spreadsheet exports). Detect knows the
//     Lumos5G and 5Gophers headers and picks their columns itself.
//   - FormatDelay and FormatLoss: LeoReplayer-style series, one one-way
//     delay (ms) or loss probability a line, each lasting ReadOptions.Step
//     (10 ms by default), for both directions. WriteSeries writes one
//     direction of a trace as one.
//
// Writers: WriteCSV (everything a trace carries), WriteMahimahi (one
// direction's capacity) and WriteSeries (one direction's delay or loss).
//
// Bad input is rejected, never skipped: every reader returns a *ParseError
// naming the file, the line and the field. The package is pure (no kernel,
// no processes) so the parsers can be fuzzed and used on any OS.
package tracefmt
