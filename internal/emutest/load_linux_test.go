package emutest

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadCountsOthersOnly: a busy loop outside the test's tree (started
// through a shell that exits, so init adopts it) is counted at about one
// CPU; a busy child of the test's own is not.
func TestLoadCountsOthersOnly(t *testing.T) {
	Exclusive(t)
	out, err := exec.Command("sh", "-c", "sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	other, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(other, syscall.SIGKILL) })
	own := exec.Command("sh", "-c", "while :; do :; done")
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { own.Process.Kill(); own.Wait() })

	a := readOthers()
	time.Sleep(time.Second) // a measuring interval
	b := readOthers()
	l := loadSince(a, b, a.self())
	t.Logf("%v", l)
	if !b.tree(a.self())[own.Process.Pid] {
		t.Errorf("the test's own child %d is not in its tree", own.Process.Pid)
	}
	if b.tree(a.self())[other] {
		t.Errorf("the adopted loop %d is in the test's tree", other)
	}
	// Two loops share two CPUs here; the other's share is at least a
	// fifth of one whatever else runs (5× below what it takes alone).
	named := false
	for _, s := range l.Top {
		named = named || strings.Contains(s, " "+strconv.Itoa(other)+":")
	}
	if l.Share() < 0.2 || !named {
		t.Errorf("the adopted loop %d not counted among the top three: %v", other, l)
	}
	for _, s := range l.Top {
		if strings.Contains(s, " "+strconv.Itoa(own.Process.Pid)+":") {
			t.Errorf("the test's own child counted: %v", l)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	line := "4242 (a) (b) c) R 17 4242 4242 0 -1 4194560 100 0 0 0 250 30 7 3 20 0 1 0 123456 1000 10 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	k, p, ok := parseProcStat(4242, []byte(line))
	if !ok || k != (procKey{4242, 123456}) || p.name != "a) (b) c" || p.ppid != 17 || p.own != 2800*time.Millisecond || p.kids != 100*time.Millisecond || p.kthread {
		t.Errorf("got %+v %+v %t", k, p, ok)
	}
	kt := "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 1 0 0 20 0 1 0 1 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	if _, p, ok := parseProcStat(2, []byte(kt)); !ok || !p.kthread {
		t.Errorf("kthreadd: %+v %t", p, ok)
	}
	for _, bad := range []string{"", "1 (x R 1", "1 (x) R 1 2 3"} {
		if _, _, ok := parseProcStat(1, []byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
