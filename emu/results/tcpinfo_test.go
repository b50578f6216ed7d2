package results

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/netip"
	"strings"
	"testing"
)

func sampleRows() []TCPInfoRow {
	nan := math.NaN()
	return []TCPInfoRow{
		{T: 0.01, SRTTMs: 20.5, RTTVarMs: 1.25, MinRTTMs: 20.001, CwndBytes: 14480, InFlightBytes: 8688,
			BytesAcked: 1000, BytesSent: 1200, BytesRetrans: 0, TotalRetrans: 0, Lost: 0, DeliveryRateMbps: 12.345, PacingRateMbps: 24.5, CC: "bbr"},
		{T: 0.02, Subflow: 2, Local: netip.MustParseAddrPort("10.0.0.1:443"), Remote: netip.MustParseAddrPort("10.2.4.2:40000"),
			SRTTMs: nan, RTTVarMs: nan, MinRTTMs: nan, CwndBytes: Unknown, InFlightBytes: Unknown, BytesAcked: Unknown,
			BytesSent: Unknown, BytesRetrans: Unknown, TotalRetrans: Unknown, Lost: Unknown, DeliveryRateMbps: nan, PacingRateMbps: nan},
		{T: 0.02, Subflow: 1, Local: netip.MustParseAddrPort("[fd00::1]:443"), Remote: netip.MustParseAddrPort("[fd00::2]:1"),
			SRTTMs: 1, CwndBytes: 1, BytesAcked: 1 << 40, BytesSent: 1 << 40, BytesRetrans: 7, TotalRetrans: 3, Lost: 1, CC: "cubic"},
	}
}

func writeRows(t testing.TB, rows []TCPInfoRow) string {
	t.Helper()
	var b bytes.Buffer
	w := NewTCPInfoWriter(&b)
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// same compares rows, NaN equal to NaN.
func same(a, b TCPInfoRow) bool {
	fa := []float64{a.T, a.SRTTMs, a.RTTVarMs, a.MinRTTMs, a.DeliveryRateMbps, a.PacingRateMbps}
	fb := []float64{b.T, b.SRTTMs, b.RTTVarMs, b.MinRTTMs, b.DeliveryRateMbps, b.PacingRateMbps}
	for i := range fa {
		if fa[i] != fb[i] && !(math.IsNaN(fa[i]) && math.IsNaN(fb[i])) {
			return false
		}
	}
	a.T, a.SRTTMs, a.RTTVarMs, a.MinRTTMs, a.DeliveryRateMbps, a.PacingRateMbps = 0, 0, 0, 0, 0, 0
	b.T, b.SRTTMs, b.RTTVarMs, b.MinRTTMs, b.DeliveryRateMbps, b.PacingRateMbps = 0, 0, 0, 0, 0, 0
	return a == b
}

func TestTCPInfoRoundTrip(t *testing.T) {
	text := writeRows(t, sampleRows())
	want := TCPInfoHeader + "\n" +
		"0.010000,0,,,20.500,1.250,20.001,14480,8688,1000,1200,0,0,0,12.345,24.500,bbr\n" +
		"0.020000,2,10.0.0.1:443,10.2.4.2:40000,,,,,,,,,,,,,\n" +
		"0.020000,1,[fd00::1]:443,[fd00::2]:1,1.000,0.000,0.000,1,0,1099511627776,1099511627776,7,3,1,0.000,0.000,cubic\n"
	if text != want {
		t.Fatalf("wrote\n%s\nwant\n%s", text, want)
	}
	got, err := ReadTCPInfo(strings.NewReader(text), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range sampleRows() {
		if !same(got[i], r) {
			t.Errorf("row %d: read %+v, wrote %+v", i, got[i], r)
		}
	}
}

func TestTCPInfoErrorsAreLocated(t *testing.T) {
	row := "0.010000,0,,,20.500,1.250,20.001,14480,8688,1000,1200,0,0,0,12.345,24.500,reno"
	for _, tc := range []struct{ text, want string }{
		{"", "f.csv:1: header: empty file"},
		{"t_s,bytes\n", `f.csv:1: header: "t_s,bytes": want`},
		{TCPInfoHeader + "\n" + row + ",1\n", "f.csv:2: row:"},
		{TCPInfoHeader + "\n" + strings.Replace(row, "20.500", "abc", 1) + "\n", `f.csv:2: srtt_ms: "abc": strconv.ParseFloat`},
		{TCPInfoHeader + "\n" + strings.Replace(row, "14480", "-3", 1) + "\n", `f.csv:2: cwnd_bytes: "-3": negative`},
		{TCPInfoHeader + "\n" + strings.Replace(row, "12.345", "NaN", 1) + "\n", `f.csv:2: delivery_rate_mbps: "NaN": not a finite number`},
		{TCPInfoHeader + "\n" + strings.Replace(row, "0,,,", "0,10.0.0.1,,", 1) + "\n", `f.csv:2: local: "10.0.0.1":`},
		{TCPInfoHeader + "\n" + strings.Replace(row, "0.010000,0,", "0.01,x,", 1) + "\n", `f.csv:2: subflow: "x"`},
		{TCPInfoHeader + "\n" + strings.Replace(row, "0.010000", "", 1) + "\n", `f.csv:2: t_s: strconv.ParseFloat: parsing ""`},
		{TCPInfoHeader + "\n" + strings.Replace(row, "reno", "re no", 1) + "\n", `f.csv:2: cc: "re no": not a congestion control name`},
		{TCPInfoHeader + "\n" + row + "\n" + strings.Replace(row, "0.010000", "0.005", 1) + "\n", `f.csv:3: t_s: "0.005": before the previous sample of subflow 0`},
	} {
		_, err := ReadTCPInfo(strings.NewReader(tc.text), "f.csv")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.text, err, tc.want)
		}
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("%v: not a *ParseError", err)
		}
	}
}

func TestTCPInfoWriteAllocatesNothing(t *testing.T) {
	w := NewTCPInfoWriter(io.Discard)
	rows := sampleRows()
	if n := testing.AllocsPerRun(1000, func() {
		for _, r := range rows {
			w.Write(r)
		}
	}); n != 0 {
		t.Errorf("%v allocations per 3 rows", n)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestTCPInfoWriteErrorSticks(t *testing.T) {
	w := NewTCPInfoWriter(failWriter{})
	w.Write(sampleRows()[0])
	if err := w.Flush(); err == nil {
		t.Fatal("flush to a failing writer succeeded")
	}
	if err := w.Write(sampleRows()[0]); err == nil {
		t.Error("write after a failure succeeded")
	}
}

// FuzzReadTCPInfo: whatever the reader accepts, it writes back in a form it
// reads again to the same text (write ∘ read is idempotent).
func FuzzReadTCPInfo(f *testing.F) {
	f.Add(writeRows(f, sampleRows()))
	f.Add(TCPInfoHeader + "\n1,0,,,,,,,,,,,,,,,\n")
	f.Add("t_s,bytes\n1,2\n")
	f.Fuzz(func(t *testing.T, text string) {
		rows, err := ReadTCPInfo(strings.NewReader(text), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) && !strings.HasPrefix(err.Error(), "fuzz: ") {
				t.Fatalf("unlocated error %v", err)
			}
			return
		}
		once := writeRows(t, rows)
		again, err := ReadTCPInfo(strings.NewReader(once), "once")
		if err != nil {
			t.Fatalf("own output rejected: %v\n%s", err, once)
		}
		if twice := writeRows(t, again); twice != once {
			t.Fatalf("not stable:\n%s\n%s", once, twice)
		}
	})
}

func BenchmarkTCPInfoWrite(b *testing.B) {
	w := NewTCPInfoWriter(io.Discard)
	r := sampleRows()[0]
	b.ReportAllocs()
	for b.Loop() {
		w.Write(r)
	}
}
