package pdcp

import (
	"errors"
	"testing"
)

// FuzzDeliveryStatus parses arbitrary bytes: ParseDeliveryStatus must not
// panic, must fail only with its two errors, and whatever it accepts must
// re-encode to a frame of n·4−2 octets that parses to the same value.
func FuzzDeliveryStatus(f *testing.F) {
	for _, s := range []DeliveryStatus{
		{},
		{DesiredBuffer: 0x11223344},
		{DesiredBuffer: 1, DesiredRate: 2, HighestDelivered: 3, HighestTransmitted: 4, HasDelivered: true, HasTransmitted: true, Final: true},
		{HighestTransmitted: 0xFFFFFF, HasTransmitted: true},
	} {
		f.Add(AppendDeliveryStatus(nil, s))
	}
	f.Add([]byte{0x11, 0x00, 0x00, 0xab, 0x41, 0x30, 0x02, 0x1e, 0x84, 0x81, 0x1e, 0x84, 0x89, 0x4c, 0x4b, 0xa4, 0x4c, 0x4c, 0x81, 0, 0, 0})
	f.Add([]byte{0x1f, 0x0f, 0, 0, 0, 1, 0, 0, 0, 2, 1, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 7, 0, 0, 5, 0, 0, 6})
	f.Add([]byte{0x20, 0x00})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseDeliveryStatus(data)
		if err != nil {
			if !errors.Is(err, ErrStatusTruncated) && !errors.Is(err, ErrNotDeliveryStatus) {
				t.Fatalf("unexpected error %v", err)
			}
			if s != (DeliveryStatus{}) {
				t.Fatalf("returned %+v with error %v", s, err)
			}
			return
		}
		if s.HighestDelivered > 0xFFFFFF || s.HighestTransmitted > 0xFFFFFF ||
			!s.HasDelivered && s.HighestDelivered != 0 || !s.HasTransmitted && s.HighestTransmitted != 0 {
			t.Fatalf("parsed an impossible status %+v", s)
		}
		b := AppendDeliveryStatus(nil, s)
		if len(b)%4 != 2 || len(b) > MaxDeliveryStatusLen {
			t.Fatalf("re-encoded to %d octets", len(b))
		}
		back, err := ParseDeliveryStatus(b)
		if err != nil || back != s {
			t.Fatalf("% x parsed to %+v; re-encoded % x parsed to %+v, %v", data, s, b, back, err)
		}
	})
}
