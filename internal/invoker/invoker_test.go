package invoker

import (
	"os"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name     string
		euid     int
		uid, gid string
		want     Invoker
		ok       bool
	}{
		{"sudo from a user", 0, "1000", "1001", Invoker{1000, 1001}, true},
		{"nobody", 0, "65534", "65534", Invoker{65534, 65534}, true},
		{"not root", 1000, "1000", "1000", Invoker{}, false},
		{"root without sudo", 0, "", "", Invoker{}, false},
		{"gid missing", 0, "1000", "", Invoker{}, false},
		{"uid missing", 0, "", "1000", Invoker{}, false},
		{"root ran sudo", 0, "0", "0", Invoker{}, false},
		{"not a number", 0, "alice", "1000", Invoker{}, false},
		{"negative", 0, "-1", "1000", Invoker{}, false},
		{"no-change id", 0, "4294967295", "1000", Invoker{}, false},
		{"over 32 bits", 0, "4294967296", "1000", Invoker{}, false},
		{"space", 0, " 1000", "1000", Invoker{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"SUDO_UID": c.uid, "SUDO_GID": c.gid}
			got, ok := parse(c.euid, func(k string) string { return env[k] })
			if got != c.want || ok != c.ok {
				t.Errorf("parse(%d, SUDO_UID=%q SUDO_GID=%q) = %+v, %v; want %+v, %v", c.euid, c.uid, c.gid, got, ok, c.want, c.ok)
			}
		})
	}
}

// TestFromEnv reads this process's own environment and euid.
func TestFromEnv(t *testing.T) {
	t.Setenv("SUDO_UID", "4242")
	t.Setenv("SUDO_GID", "4343")
	got, ok := FromEnv()
	if os.Geteuid() != 0 {
		if ok {
			t.Fatalf("FromEnv as uid %d = %+v, true; want false", os.Geteuid(), got)
		}
		return
	}
	if !ok || got != (Invoker{4242, 4343}) {
		t.Fatalf("FromEnv as root = %+v, %v; want {4242 4343}, true", got, ok)
	}
}
