package procstat

import (
	"strings"
	"testing"
	"time"
)

// statLine is a real /proc/<pid>/stat line (a cat process, 52 fields) with
// the name, utime, stime, num_threads, processor, rt_priority and policy
// put in, and cutime and cstime at 3 and 4 ticks.
func statLine(name string, utime, stime, threads, cpu, rtprio, policy int) string {
	f := strings.Fields("R 28440 28440 7773 0 -1 4194304 103 0 0 0 0 0 0 0 20 0 1 0 139752 3133440 416 18446744073709551615 94136783343616 94136783363497 140733986405920 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94136783379504 94136783381120 94136959389696 140733986409120 140733986409140 140733986409140 140733986410475 0")
	set := func(n, v int) { f[n-3] = itoa(v) }
	set(14, utime)
	set(15, stime)
	set(16, 3)
	set(17, 4)
	set(20, threads)
	set(39, cpu)
	set(40, rtprio)
	set(41, policy)
	return "28443 (" + name + ") " + strings.Join(f, " ") + "\n"
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

func TestParseStat(t *testing.T) {
	for _, name := range []string{"emu", "delay line 1", "a) (b", "x)", ""} {
		s, err := ParseStat([]byte(statLine(name, 1234, 56, 7, 1, 10, 1)), "stat")
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		want := Stat{PID: 28443, Name: name, State: 'R', User: 12340 * time.Millisecond, System: 560 * time.Millisecond, ChildUser: 30 * time.Millisecond, ChildSystem: 40 * time.Millisecond, Threads: 7, CPU: 1, RTPriority: 10, Policy: 1}
		if s != want {
			t.Errorf("%q: got %+v, want %+v", name, s, want)
		}
	}
}

func TestParseStatErrors(t *testing.T) {
	good := statLine("emu", 1, 2, 3, 0, 0, 0)
	for _, c := range []struct{ in, want string }{
		{"", "procstat: /proc/1/stat: no (name)"},
		{"12 emu) R", "procstat: /proc/1/stat: no (name)"},
		{"x (emu) R 1 2", "procstat: /proc/1/stat: pid: strconv.Atoi: parsing \"x\": invalid syntax"},
		{"1 (emu) R 1 2", "procstat: /proc/1/stat: 3 fields after the name, want at least 39"},
		{strings.Replace(good, " 20 0 3 ", " 20 0 x ", 1), "procstat: /proc/1/stat: field 20 (num_threads): strconv.ParseInt: parsing \"x\": invalid syntax"},
		{strings.Replace(good, "(emu) R", "(emu) RR", 1), "procstat: /proc/1/stat: field 3 (state): \"RR\""},
	} {
		_, err := ParseStat([]byte(c.in), "/proc/1/stat")
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.in, err, c.want)
		}
	}
}

func TestParseSchedstat(t *testing.T) {
	s, err := ParseSchedstat([]byte("4112233 74588 12\n"), "schedstat")
	if err != nil || s != (Sched{OnCPU: 4112233, Wait: 74588, Slices: 12}) {
		t.Errorf("got %+v, %v", s, err)
	}
	for _, c := range []struct{ in, want string }{
		{"1 2", "procstat: s: 2 fields, want 3 (run ns, wait ns, timeslices)"},
		{"1 -2 3", "procstat: s: field 2: strconv.ParseUint: parsing \"-2\": invalid syntax"},
		{"18446744073709551615 0 0", "procstat: s: time out of range"},
	} {
		if _, err := ParseSchedstat([]byte(c.in), "s"); err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.in, err, c.want)
		}
	}
}

func TestParseHost(t *testing.T) {
	in := "cpu  14930 0 4429 104634 138 0 645 56 0 0\ncpu0 7411 0 2349 52364 63 0 335 24 0 0\ncpu1 7518 0 2080 52269 74 0 310 31 0 0\nintr 1 2 3\nctxt 99\n"
	h, err := ParseHost([]byte(in), "/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	tick := 10 * time.Millisecond
	want := Host{User: 14930 * tick, System: 4429 * tick, Idle: 104634 * tick, IOWait: 138 * tick, SoftIRQ: 645 * tick, Steal: 56 * tick, CPUs: 2}
	if h != want {
		t.Errorf("got %+v, want %+v", h, want)
	}
	if got := h.Total(); got != (14930+4429+104634+138+645+56)*tick {
		t.Errorf("total %v", got)
	}
	// A kernel without the steal column.
	h, err = ParseHost([]byte("cpu 1 2 3 4\n"), "old")
	if err != nil || h.Steal != 0 || h.Idle != 4*tick {
		t.Errorf("old format: %+v, %v", h, err)
	}
	for _, c := range []struct{ in, want string }{
		{"intr 1\n", "procstat: p: no cpu line"},
		{"cpu 1 2 3\n", "procstat: p: cpu line has 3 fields, want at least 4 times"},
		{"cpu 1 2 x 4\n", "procstat: p: cpu field 3: strconv.ParseUint: parsing \"x\": invalid syntax"},
		{"cpu 1 2 3 4\ncpu 1 2 3 4\n", "procstat: p: two cpu lines"},
	} {
		if _, err := ParseHost([]byte(c.in), "p"); err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.in, err, c.want)
		}
	}
}
