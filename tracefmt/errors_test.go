package tracefmt

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

const racaHeader = "Timestamp,Longitude,Latitude,Speed,Operatorname,CellID,NetworkMode,RSRP,RSRQ,SNR,CQI,RSSI,DL_bitrate,UL_bitrate,State\n"

func racaRow(ts, dl, ul string) string {
	return ts + ",-8.50,51.89,0,A,2,LTE,-110,-14,4.0,2,-93," + dl + "," + ul + ",D\n"
}

// TestBadInputNamesFileLineField covers the four kinds of bad input
// in every format: each error is a *ParseError naming the file, the line and
// the field, with the right reason.
func TestBadInputNamesFileLineField(t *testing.T) {
	cols := ReadOptions{Format: FormatColumns, TimeColumn: "t", DownColumn: "rate"}
	for _, c := range []struct {
		name    string
		in      string
		o       ReadOptions
		line    int
		field   string
		reason  error
		message string // the whole Error(), if given
	}{
		// Empty files, every format (detected and forced).
		{"empty", "", ReadOptions{}, 1, "", ErrEmpty, "f:1: trace is empty"},
		{"blank lines", "\n  \n\n", ReadOptions{}, 1, "", ErrEmpty, ""},
		{"empty raca", "", ReadOptions{Format: FormatRaca}, 1, "", ErrEmpty, ""},
		{"raca header only", racaHeader, ReadOptions{}, 2, "DL_bitrate", ErrEmpty, ""},
		{"empty mahimahi", "\n", ReadOptions{Format: FormatMahimahi}, 2, "time", ErrEmpty, ""},
		{"empty csv", "", ReadOptions{Format: FormatCSV}, 1, "time_s", ErrEmpty, ""},
		{"csv header only", "time_s,down_mbps\n", ReadOptions{}, 2, "time_s", ErrEmpty, ""},
		{"empty cooked", "", ReadOptions{Format: FormatCooked}, 1, "time", ErrEmpty, ""},
		{"empty columns", "t,rate\n", cols, 2, "rate", ErrEmpty, ""},

		// Headers without rate columns.
		{"raca without DL_bitrate", "Timestamp,Longitude,UL_bitrate\n", ReadOptions{Format: FormatRaca}, 1, "DL_bitrate", ErrMissingColumn,
			"f:1: DL_bitrate: column not found in header"},
		{"raca without DL_bitrate, detected", "Timestamp,UL_bitrate\n", ReadOptions{}, 1, "DL_bitrate", ErrMissingColumn, ""},
		{"csv without down_mbps", "time_s,up_mbps\n0,1\n1,1\n", ReadOptions{}, 1, "down_mbps", ErrMissingColumn, ""},
		{"csv with a typo", "time_s,down_kbps\n0,1\n", ReadOptions{Format: FormatCSV}, 1, "header", ErrUnknownColumn, ""},
		{"csv loss beside up_loss", "time_s,loss,up_loss\n0,0,0\n1\n", ReadOptions{}, 1, "header", ErrDuplicateColumn,
			`f:1: header: "loss": column appears twice (loss sets both directions' loss; beside it down_loss and up_loss are ambiguous)`},
		{"csv down_loss alone", "time_s,down_mbps,down_loss\n0,1,0\n1\n", ReadOptions{}, 1, "header", ErrMissingColumn,
			"f:1: header: column not found in header (down_loss and up_loss come together (loss sets both directions))"},
		{"columns without the rate", "t,speed\n0,1\n", cols, 1, "rate", ErrMissingColumn, ""},
		{"columns without the time", "time,rate\n0,1\n", cols, 1, "t", ErrMissingColumn, ""},
		{"unknown header", "a,b,c\n1,2,3\n", ReadOptions{}, 1, "", ErrUnknownFormat, ""},

		// Time going backwards.
		{"raca backwards", racaHeader + racaRow("2018.02.12_16.14.02", "1", "1") + racaRow("2018.02.12_16.14.01", "1", "1"),
			ReadOptions{}, 3, "Timestamp", ErrNotMonotonic, ""},
		{"mahimahi backwards", "0\n5\n4\n", ReadOptions{}, 3, "time", ErrNotMonotonic,
			`f:3: time: "4": time goes backwards (previous line: 5)`},
		{"csv backwards", "0,1\n2,1\n1,1\n", ReadOptions{}, 3, "time_s", ErrNotMonotonic, ""},
		{"csv repeated time", "0,1\n1,1\n1,2\n2,1\n", ReadOptions{}, 3, "time_s", ErrNotMonotonic, ""},
		{"cooked backwards", "0 1\n2 1\n1.5 1\n", ReadOptions{}, 3, "time", ErrNotMonotonic, ""},
		{"columns backwards", "t,rate\n1,5\n2,5\n0,5\n", cols, 4, "t", ErrNotMonotonic, ""},

		// Negative rates (and times).
		{"raca negative", racaHeader + racaRow("2018.02.12_16.14.02", "-5", "1"), ReadOptions{}, 2, "DL_bitrate", ErrNegative,
			`f:2: DL_bitrate: "-5": negative value`},
		{"raca negative uplink", racaHeader + racaRow("2018.02.12_16.14.02", "5", "-1"), ReadOptions{}, 2, "UL_bitrate", ErrNegative, ""},
		{"mahimahi negative", "0\n-3\n", ReadOptions{Format: FormatMahimahi}, 2, "time", ErrNegative, ""},
		{"mahimahi negative first", "-3\n5\n", ReadOptions{}, 1, "time", ErrNegative, ""},
		{"csv negative", "time_s,down_mbps,up_mbps\n0,1,1\n1,-2,1\n2,1,1\n", ReadOptions{}, 3, "down_mbps", ErrNegative, ""},
		{"csv negative up", "0,1,-1\n1,1,1\n", ReadOptions{}, 1, "up_mbps", ErrNegative, ""},
		{"csv negative delay", "0,1,1,-4\n1,1,1,1\n", ReadOptions{}, 1, "delay_ms", ErrNegative, ""},
		{"cooked negative", "0 1\n1 -0.5\n", ReadOptions{}, 2, "rate", ErrNegative, ""},
		{"columns negative", "t,rate\n1,5\n2,-5\n", cols, 3, "rate", ErrNegative, ""},

		// Non-numeric rates.
		{"raca non-numeric", racaHeader + racaRow("2018.02.12_16.14.02", "1", "1") + racaRow("2018.02.12_16.14.03", "abc", "1"),
			ReadOptions{}, 3, "DL_bitrate", strconv.ErrSyntax, `f:3: DL_bitrate: "abc": invalid syntax`},
		{"raca NaN", racaHeader + racaRow("2018.02.12_16.14.02", "NaN", "1"), ReadOptions{}, 2, "DL_bitrate", strconv.ErrSyntax, ""},
		{"mahimahi non-numeric", "0\n1.5\n", ReadOptions{}, 2, "time", strconv.ErrSyntax, ""},
		{"csv non-numeric", "0,1\n1,fast\n2,1\n", ReadOptions{}, 2, "down_mbps", strconv.ErrSyntax, ""},
		{"csv infinite", "0,Inf\n1,1\n", ReadOptions{Format: FormatCSV}, 1, "down_mbps", strconv.ErrSyntax, ""},
		{"csv loss above 1", "time_s,down_mbps,loss\n0,1,1.5\n1,1,0\n", ReadOptions{}, 2, "loss", ErrOutOfRange, ""},
		{"csv up loss above 1", "time_s,down_loss,up_loss\n0,0,1.5\n1\n", ReadOptions{}, 2, "up_loss", ErrOutOfRange,
			`f:2: up_loss: "1.5": value out of range (a probability is between 0 and 1)`},
		{"csv down loss negative", "time_s,down_loss,up_loss\n0,-0.1,0\n1\n", ReadOptions{}, 2, "down_loss", ErrOutOfRange, ""},
		{"cooked non-numeric", "0 1\n1 x\n", ReadOptions{}, 2, "rate", strconv.ErrSyntax, ""},
		{"columns non-numeric", "t,rate\n1,5\n2,5M\n", cols, 3, "rate", strconv.ErrSyntax, ""},
		{"columns huge", "t,rate\n1,5\n2,1e300\n", cols, 3, "rate", ErrOutOfRange, ""},

		// Other located problems.
		{"raca short row", racaHeader + "2018.02.12_16.14.02,1,2\n", ReadOptions{}, 2, "DL_bitrate", ErrFieldCount, ""},
		{"raca bad timestamp", racaHeader + racaRow("16:14:02", "1", "1"), ReadOptions{}, 2, "Timestamp", strconv.ErrSyntax, `f:2: Timestamp: "16:14:02": invalid syntax (want YYYY.MM.DD_hh.mm.ss)`},
		{"raca one timestamp", racaHeader + racaRow("2018.02.12_16.14.02", "1", "1"), ReadOptions{Timestamps: true}, 2, "Timestamp", ErrZeroDuration, ""},
		{"mahimahi ends at 0", "0\n0\n", ReadOptions{}, 2, "time", ErrZeroDuration, ""},
		{"mahimahi huge", "0\n99999999999999999999\n", ReadOptions{}, 2, "time", strconv.ErrRange, ""},
		{"csv one row", "0,1\n", ReadOptions{}, 1, "time_s", ErrZeroDuration, ""},
		{"csv ragged", "0,1,2\n1,1,1\n2,1,1,1\n", ReadOptions{}, 3, "", ErrFieldCount, ""},
		{"csv end row not last", "0,1\n1\n2,1\n", ReadOptions{}, 3, "time_s", ErrFieldCount, ""},
		{"cooked three fields", "0 1\n1 2 3\n", ReadOptions{}, 2, "", ErrFieldCount, ""},
		{"cooked one line", "0 1\n", ReadOptions{}, 1, "time", ErrZeroDuration, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Read(strings.NewReader(c.in), "f", c.o)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got trace %v, error %v; want a *ParseError", tr, err)
			}
			if pe.File != "f" || pe.Line != c.line || pe.Field != c.field {
				t.Errorf("error %q names %s:%d field %q; want f:%d field %q", err, pe.File, pe.Line, pe.Field, c.line, c.field)
			}
			if c.reason != nil && !errors.Is(err, c.reason) {
				t.Errorf("error %q is not %v", err, c.reason)
			}
			if c.message != "" && err.Error() != c.message {
				t.Errorf("error prints %q, want %q", err, c.message)
			}
		})
	}
}

func TestParseErrorFormat(t *testing.T) {
	err := &ParseError{File: "StaticA.csv", Line: 17, Field: "DL_bitrate", Value: "abc", Err: strconv.ErrSyntax}
	if got, want := err.Error(), `StaticA.csv:17: DL_bitrate: "abc": invalid syntax`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, strconv.ErrSyntax) {
		t.Error("Unwrap does not reach the reason")
	}
	long := parseErr("f", 1, "x", strings.Repeat("9", 1000), ErrOutOfRange)
	if len(long.Error()) > 100 {
		t.Errorf("a long value is repeated whole: %d bytes", len(long.Error()))
	}
}
