package tracefmt

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Detect guesses a trace's format from the first non-blank line of its
// content (Read passes the first 4 KiB); the reader then checks every line:
//
//   - a header with DL_bitrate or UL_bitrate: FormatRaca;
//   - a header with time_s or down_mbps, or comma-separated numbers:
//     FormatCSV;
//   - a Lumos5G or 5Gophers header: FormatColumns (Read then picks the
//     columns itself);
//   - one integer: FormatMahimahi;
//   - two numbers separated by white space: FormatCooked.
//
// Anything else is ErrUnknownFormat; ReadOptions.Format forces a format.
func Detect(head []byte) (Format, error) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	first := firstLine(head)
	if first == "" {
		return "", ErrEmpty
	}
	if strings.Contains(first, ",") {
		fields := strings.Split(first, ",")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		// A header that names one of a format's columns is that format's,
		// even if others are missing: its reader then says which.
		switch {
		case column(fields, racaDown) >= 0 || column(fields, racaUp) >= 0:
			return FormatRaca, nil
		case !isHeader(fields):
			return FormatCSV, nil
		case column(fields, colTime) >= 0 || column(fields, colDown) >= 0:
			return FormatCSV, nil
		}
		if _, ok := presetFor(fields); ok {
			return FormatColumns, nil
		}
		return "", fmt.Errorf("%w: header %q is none of raca, csv, Lumos5G or 5Gophers; name its columns with format %q",
			ErrUnknownFormat, cut(first), FormatColumns)
	}
	switch {
	case isInt(first):
		return FormatMahimahi, nil
	case isPair(first):
		return FormatCooked, nil
	}
	return "", fmt.Errorf("%w: first line %q", ErrUnknownFormat, cut(first))
}

// firstLine returns the first non-blank line of head, trimmed.
func firstLine(head []byte) string {
	for rest := head; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if s := strings.TrimSpace(string(line)); s != "" {
			return s
		}
	}
	return ""
}

// isInt accepts negative numbers too, so that the Mahimahi reader, not
// Detect, reports them, with their line.
func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func isPair(s string) bool {
	f := strings.Fields(s)
	if len(f) != 2 {
		return false
	}
	_, err1 := parseFinite(f[0])
	_, err2 := parseFinite(f[1])
	return err1 == nil && err2 == nil
}

// cut shortens a line for an error message.
func cut(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
