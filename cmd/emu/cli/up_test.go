package cli

import (
	"os"
	"os/user"
	"slices"
	"testing"
)

// TestExecUser checks what emu exec --user runs its command as: the user
// behind sudo with that user's groups and home, and that without one it is
// a usage error rather than a command run as root.
func TestExecUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: invoker.FromEnv sees a user behind sudo only in a root process")
	}
	u, err := user.LookupId("65534")
	if err != nil {
		t.Skipf("no user 65534 (nobody) here: %v", err)
	}
	t.Setenv("SUDO_UID", "")
	t.Setenv("SUDO_GID", "")
	if _, _, err := invokerExec(nil); err == nil {
		t.Error("--user without a user behind sudo: no error")
	}
	t.Setenv("SUDO_UID", "65534")
	t.Setenv("SUDO_GID", "65534")
	env, cred, err := invokerExec([]string{"PATH=/usr/bin", "HOME=/root", "USER=root"})
	if err != nil {
		t.Fatal(err)
	}
	if cred.Uid != 65534 || cred.Gid != 65534 || len(cred.Groups) == 0 || cred.Groups[0] != 65534 || slices.Contains(cred.Groups, 0) {
		t.Errorf("credentials %+v; want uid and gid 65534, groups starting with 65534, no root group", cred)
	}
	for _, kv := range []string{"PATH=/usr/bin", "HOME=" + u.HomeDir, "USER=" + u.Username, "LOGNAME=" + u.Username} {
		if !slices.Contains(env, kv) {
			t.Errorf("environment %q lacks %s", env, kv)
		}
	}
	if slices.Contains(env, "HOME=/root") || slices.Contains(env, "USER=root") {
		t.Errorf("environment %q keeps root's HOME or USER", env)
	}
}
