package endpoint

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPunchHole(t *testing.T) {
	f, err := os.Create(t.TempDir() + "/dl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, 4<<20)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	blocks := func() int64 {
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			t.Fatal(err)
		}
		return st.Blocks * 512
	}
	before := blocks()
	if err := punchHole(f, 3<<20); err != nil {
		t.Skipf("file system of %s cannot punch holes: %v", f.Name(), err)
	}
	after := blocks()
	st, _ := f.Stat()
	if st.Size() != 4<<20 {
		t.Errorf("size %d after punching, want unchanged %d", st.Size(), 4<<20)
	}
	if after > before-(3<<20) {
		t.Errorf("%d bytes allocated before, %d after punching 3 MiB", before, after)
	}
}
