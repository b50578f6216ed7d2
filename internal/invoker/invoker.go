// Package invoker says who asked for this process: the user behind sudo.
//
// emu re-runs itself through sudo because namespaces, qdiscs and NFQUEUE
// need root, but what it writes (run and sweep directories, pcaps, figures,
// reports) is the user's work, and what it reads on the user's behalf must
// be what the user could read. Both need the same fact — which user ran
// sudo — and this package is where it is read, once, from the SUDO_UID and
// SUDO_GID that sudo sets. It holds no state: callers ask when they need it.
package invoker

import (
	"os"
	"strconv"
)

// Invoker is the user who ran emu through sudo.
type Invoker struct {
	UID, GID int
}

// FromEnv returns the user who ran emu through sudo. ok is false when
// there is nobody to act for: the process does not run as root (euid ≠ 0),
// SUDO_UID or SUDO_GID is missing or not a non-negative number, or the
// invoker is root itself (root running sudo) — in each case files are
// already the caller's.
func FromEnv() (inv Invoker, ok bool) {
	return parse(os.Geteuid(), os.Getenv)
}

// parse is FromEnv with the effective uid and the environment passed in.
func parse(euid int, getenv func(string) string) (Invoker, bool) {
	if euid != 0 {
		return Invoker{}, false
	}
	uid, ok1 := id(getenv("SUDO_UID"))
	gid, ok2 := id(getenv("SUDO_GID"))
	if !ok1 || !ok2 || uid == 0 {
		return Invoker{}, false
	}
	return Invoker{UID: uid, GID: gid}, true
}

// id parses a numeric user or group id as sudo writes it (decimal, 32-bit).
func id(s string) (int, bool) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 1<<32-1 { // (uid_t)-1 means "no change" to chown
		return 0, false
	}
	return int(n), true
}
