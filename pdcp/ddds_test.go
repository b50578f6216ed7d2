package pdcp

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDeliveryStatusRoundTrip encodes statuses into the octets TS 38.425
// §5.5.2.2 gives (worked by hand; the first two as srsRAN's packing test
// has them) and decodes them back.
func TestDeliveryStatusRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		s    DeliveryStatus
		want string
	}{
		{"DBS only", DeliveryStatus{DesiredBuffer: 0x11223344}, "10 00 11223344"},
		{"data rate", DeliveryStatus{DesiredBuffer: 0x11223344, DesiredRate: 0x55667788},
			"10 08 11223344 55667788"},
		{"delivered", DeliveryStatus{DesiredBuffer: 1000, HighestDelivered: 0x0ABCDE, HasDelivered: true},
			"14 00 000003e8 0abcde 00"},
		{"transmitted", DeliveryStatus{DesiredBuffer: 1000, HighestTransmitted: 0x3FFFF, HasTransmitted: true},
			"18 00 000003e8 03ffff 00"},
		{"both and final", DeliveryStatus{DesiredBuffer: 0, HighestDelivered: 7, HighestTransmitted: 9,
			HasDelivered: true, HasTransmitted: true, Final: true},
			"1e 00 00000000 000007 000009 0000"},
		{"everything", DeliveryStatus{DesiredBuffer: 0xFFFFFFFF, DesiredRate: 1, HighestDelivered: 0xFFFFFF,
			HighestTransmitted: 0x800000, HasDelivered: true, HasTransmitted: true},
			"1c 08 ffffffff 00000001 ffffff 800000 0000"},
	}
	for _, tc := range cases {
		got := AppendDeliveryStatus(nil, tc.s)
		if want := unhex(t, tc.want); string(got) != string(want) {
			t.Errorf("%s: encoded % x, want % x", tc.name, got, want)
		}
		if len(got)%4 != 2 || len(got) > MaxDeliveryStatusLen {
			t.Errorf("%s: %d octets, want n·4−2 and at most %d", tc.name, len(got), MaxDeliveryStatusLen)
		}
		back, err := ParseDeliveryStatus(got)
		if err != nil || back != tc.s {
			t.Errorf("%s: decoded %+v, %v; want %+v", tc.name, back, err, tc.s)
		}
	}

	// Appending keeps what b holds; SNs are sent modulo 2^24, and an SN
	// without its flag is not sent.
	b := AppendDeliveryStatus([]byte{0xAA}, DeliveryStatus{HighestDelivered: 0x1234567, HasDelivered: true,
		HighestTransmitted: 5})
	if want := unhex(t, "aa 14 00 00000000 234567 00"); string(b) != string(want) {
		t.Errorf("masked SN: % x, want % x", b, want)
	}
}

// TestParseDeliveryStatusSkips decodes frames with the fields emu does not
// use: they are skipped, and the DBS and SNs still come through.
func TestParseDeliveryStatusSkips(t *testing.T) {
	cases := []struct {
		name  string
		frame string
		want  DeliveryStatus
	}{
		// srsRAN's GTP-U test frame: two lost NR-U SN ranges, padding.
		{"lost ranges", "11 00 00ab4130 02 1e8481 1e8489 4c4ba4 4c4c81 000000", DeliveryStatus{DesiredBuffer: 11223344}},
		{"lost range then SN", "15 00 00000800 01 000001 000002 000123 0000",
			DeliveryStatus{DesiredBuffer: 2048, HighestDelivered: 0x123, HasDelivered: true}},
		{"no lost ranges", "15 00 00000800 00 000123", DeliveryStatus{DesiredBuffer: 2048, HighestDelivered: 0x123, HasDelivered: true}},
		{"cause and retransmissions", "14 07 00000001 000009 05 000008 000009 00000000",
			DeliveryStatus{DesiredBuffer: 1, HighestDelivered: 9, HasDelivered: true}},
		{"spare bits", "10 f0 00000010", DeliveryStatus{DesiredBuffer: 16}},
		{"no padding", "14 00 00000010 000001", DeliveryStatus{DesiredBuffer: 16, HighestDelivered: 1, HasDelivered: true}},
		{"extension after padding", "10 00 00000010 0000 deadbeef", DeliveryStatus{DesiredBuffer: 16}},
	}
	for _, tc := range cases {
		got, err := ParseDeliveryStatus(unhex(t, tc.frame))
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestParseDeliveryStatusErrors(t *testing.T) {
	cases := []struct {
		name, frame string
		is          error
		msg         string
	}{
		{"empty", "", ErrStatusTruncated, "the flags needs octets 1–2, the frame has 0"},
		{"one octet", "10", ErrStatusTruncated, "the flags needs octets 1–2, the frame has 1"},
		{"user data", "00 00 000000 00", ErrNotDeliveryStatus, "PDU type 0 (want 1)"},
		{"assistance information", "2", ErrNotDeliveryStatus, "PDU type 2 (want 1)"},
		{"one octet of another type", "f0", ErrNotDeliveryStatus, "PDU type 15"},
		{"DBS", "10 00 112233", ErrStatusTruncated, "the desired buffer size needs octets 3–6, the frame has 5"},
		{"rate", "10 08 11223344 5566", ErrStatusTruncated, "the desired data rate needs octets 7–10"},
		{"lost count", "11 00 11223344", ErrStatusTruncated, "the number of lost NR-U SN ranges needs octet"},
		{"lost ranges", "11 00 11223344 02 000001 000002 000003", ErrStatusTruncated, "the lost NR-U SN ranges needs octets 8–19"},
		{"delivered SN", "14 00 11223344 0abc", ErrStatusTruncated, "the highest delivered NR PDCP SN needs octets 7–9"},
		{"transmitted SN", "1c 00 11223344 000001 00", ErrStatusTruncated, "the highest transmitted NR PDCP SN needs octets 10–12"},
		{"cause", "10 01 11223344", ErrStatusTruncated, "the cause value"},
		{"delivered retransmitted", "10 02 11223344 00", ErrStatusTruncated, "the highest delivered retransmitted NR PDCP SN"},
		{"retransmitted", "10 04 11223344 00", ErrStatusTruncated, "the highest retransmitted NR PDCP SN"},
	}
	for _, tc := range cases {
		frame := strings.ReplaceAll(tc.frame, " ", "")
		if len(frame)%2 == 1 {
			frame += "0"
		}
		s, err := ParseDeliveryStatus(unhex(t, frame))
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %v containing %q", tc.name, err, tc.is, tc.msg)
		}
		if s != (DeliveryStatus{}) {
			t.Errorf("%s: returned %+v with the error", tc.name, s)
		}
	}
}

func TestDeliveryStatusAllocs(t *testing.T) {
	buf := make([]byte, 0, MaxDeliveryStatusLen)
	s := DeliveryStatus{DesiredBuffer: 1 << 20, DesiredRate: 1e6, HighestDelivered: 5, HighestTransmitted: 9,
		HasDelivered: true, HasTransmitted: true}
	if a := testing.AllocsPerRun(1000, func() {
		b := AppendDeliveryStatus(buf[:0], s)
		if got, err := ParseDeliveryStatus(b); err != nil || got != s {
			t.Fatal(got, err)
		}
	}); a != 0 {
		t.Errorf("AppendDeliveryStatus/ParseDeliveryStatus allocate %.1f times per frame", a)
	}
}
