package workload

import (
	"strings"
	"testing"
	"time"
)

func TestCheckEnd(t *testing.T) {
	list, _ := ParseObjects("1MB,2MB")
	exp, _ := ParseObjects("exp:1MB")
	for _, tc := range []struct {
		kind     string
		objects  ObjectSpec
		count    int
		duration time.Duration
		want     string // "" for none
	}{
		{KindBulk, ObjectSpec{}, 0, 0, ""},
		{KindRR, ObjectSpec{}, 0, 0, "an rr flow needs a count or a duration"},
		{KindRR, ObjectSpec{}, 10, 0, ""},
		{KindCBR, ObjectSpec{}, 0, time.Second, ""},
		{KindObjects, list, 0, 0, ""},
		{KindObjects, exp, 0, 0, "objects drawn from exp need a count or the flow's duration"},
		{KindObjects, exp, 3, 0, ""},
	} {
		err := CheckEnd(tc.kind, tc.objects, tc.count, tc.duration)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckEnd(%s, %s, %d, %v) = %v, want %q", tc.kind, tc.objects, tc.count, tc.duration, err, tc.want)
		}
	}
	if CheckCBRPacket(CBRHeader-1) == nil || CheckCBRPacket(MaxCBRPacket) != nil || CheckTransaction(-1) == nil ||
		CheckCBRInterval(160, MinCBRInterval/2) == nil || CheckCBRInterval(160, 20*time.Millisecond) != nil {
		t.Error("the cbr and rr bounds")
	}
}
