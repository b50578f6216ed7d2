package workload

import (
	"strings"
	"testing"
)

func TestCheckResume(t *testing.T) {
	for _, c := range []struct {
		kind, resume, proto string
		want                string // "" for no error, else a part of it
	}{
		{KindBulk, "", "quic", ""},
		{KindBulk, ResumeOff, "tcp", ""},
		{KindRR, Resume1RTT, "tcp", ""},
		{KindObjects, Resume0RTT, "quic", ""},
		{KindObjects, ResumeBDP, "tcp", ""},
		{KindBulk, Resume1RTT, "quic", "applies to rr and objects flows"},
		{KindCBR, ResumeBDP, ProtoUDP, "applies to rr and objects flows"},
		{KindRR, Resume0RTT, "tcp", "0rtt is QUIC's"},
		{KindObjects, ResumeBDP, "quic", "not for quic"},
		{KindRR, "2rtt", "quic", `got "2rtt"`},
	} {
		err := CheckResume(c.kind, c.resume, c.proto)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckResume(%s, %q, %s) = %v, want %q", c.kind, c.resume, c.proto, err, c.want)
		}
	}
	if CheckResumeCheck(ResumeBDP, true) != nil || CheckResumeCheck(Resume1RTT, false) != nil || CheckResumeCheck(Resume1RTT, true) == nil || CheckResumeCheck("", true) == nil {
		t.Error("resume_check: allowed only with resume bdp")
	}
}
