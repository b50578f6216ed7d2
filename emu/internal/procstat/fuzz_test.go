package procstat

import (
	"testing"
)

// The parsers read files the kernel writes, but a reading can catch a
// file of a process that is exiting, or another kernel's layout: whatever
// the bytes, they return a value or an error, never panic, and never a
// negative time.

func FuzzParseStat(f *testing.F) {
	f.Add([]byte(statLine("emu", 1, 2, 3, 0, 10, 1)))
	f.Add([]byte(statLine("a) (b", 0, 0, 1, 1, 0, 0)))
	f.Add([]byte("1 () R"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStat(b, "f")
		if err == nil && (s.User < 0 || s.System < 0 || s.Threads < 0) {
			t.Fatalf("negative figures: %+v", s)
		}
	})
}

func FuzzParseSchedstat(f *testing.F) {
	f.Add([]byte("4112233 74588 12\n"))
	f.Add([]byte("1 2"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSchedstat(b, "f")
		if err == nil && (s.OnCPU < 0 || s.Wait < 0) {
			t.Fatalf("negative figures: %+v", s)
		}
	})
}

func FuzzParseHost(f *testing.F) {
	f.Add([]byte("cpu  14930 0 4429 104634 138 0 645 56 0 0\ncpu0 7411 0 2349 52364 63 0 335 24 0 0\n"))
	f.Add([]byte("cpu 1 2 3 4\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHost(b, "f")
		if err == nil && (h.Total() < 0 || h.Steal < 0) {
			t.Fatalf("negative figures: %+v", h)
		}
	})
}
