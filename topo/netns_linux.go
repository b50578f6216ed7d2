package topo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/internal/nsthread"
)

// NetnsDir is where named namespaces live, as with `ip netns`, so users can
// also reach a run's nodes with `ip netns exec`.
const NetnsDir = "/run/netns"

// createNamed makes a named namespace without moving the caller into it.
func createNamed(name string) (netns.NsHandle, error) {
	var ns netns.NsHandle
	err := nsthread.Run(func() error {
		if err := prepareNetnsDir(); err != nil {
			return err
		}
		h, err := netns.NewNamed(name)
		if err != nil {
			return err
		}
		ns = h
		return nil
	})
	if err != nil {
		if ns.IsOpen() {
			ns.Close()
		}
		return netns.None(), fmt.Errorf("create netns %s: %w", name, err)
	}
	return ns, nil
}

// prepareNetnsDir makes NetnsDir a shared mount of itself, as `ip netns
// add` does on first use. Done before our namespaces are mounted there, it
// keeps a later `ip netns add` from bind-mounting the directory over them,
// which would hide their mounts (unlink then fails with EBUSY and emu clean
// could not remove them).
//
// Runs starting at the same time (a sweep's parallel jobs, two shards on
// one host) would both find no mount point and stack two bind mounts, the
// second hiding the first run's namespaces; an exclusive lock on the
// directory (every process of every emu agrees on its inode) makes the
// check and the mount one step.
func prepareNetnsDir() error {
	if err := os.MkdirAll(NetnsDir, 0o755); err != nil {
		return err
	}
	dir, err := os.Open(NetnsDir)
	if err != nil {
		return err
	}
	defer dir.Close() // releases the lock
	if err := unix.Flock(int(dir.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", NetnsDir, err)
	}
	err = unix.Mount("", NetnsDir, "none", unix.MS_SHARED|unix.MS_REC, "")
	if errors.Is(err, unix.EINVAL) { // not a mount point yet
		if err := unix.Mount(NetnsDir, NetnsDir, "none", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", NetnsDir, err)
		}
		err = unix.Mount("", NetnsDir, "none", unix.MS_SHARED|unix.MS_REC, "")
	}
	if err != nil {
		return fmt.Errorf("make %s shared: %w", NetnsDir, err)
	}
	return nil
}

// DeleteNamespace kills every process left inside a named namespace, then
// unmounts and removes it. A missing namespace is not an error.
func DeleteNamespace(name string) error {
	path := filepath.Join(NetnsDir, name)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if ino, err := nsInode(path); err == nil {
		killProcsIn(ino)
	}
	// EINVAL: nothing is mounted there. A run killed between creating the
	// file and bind-mounting the namespace on it leaves a plain file.
	if err := unix.Unmount(path, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete netns %s: unmount: %w", name, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete netns %s: %w", name, err)
	}
	return nil
}

// ListNamespaces returns the names of the named namespaces in NetnsDir.
func ListNamespaces() ([]string, error) {
	ents, err := os.ReadDir(NetnsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out, nil
}

func nsInode(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

// ProcsIn returns the PIDs of processes whose network namespace is the one
// with inode ino.
func ProcsIn(ino uint64) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+e.Name()+"/ns/net", &st) == nil && st.Ino == ino {
			pids = append(pids, pid)
		}
	}
	return pids
}

// NamespaceProcs returns the PIDs of processes inside a named namespace.
func NamespaceProcs(name string) []int {
	ino, err := nsInode(filepath.Join(NetnsDir, name))
	if err != nil {
		return nil
	}
	return ProcsIn(ino)
}

func killProcsIn(ino uint64) {
	for _, pid := range ProcsIn(ino) {
		unix.Kill(pid, unix.SIGKILL)
	}
}

// ExecIn replaces the current process with argv running inside the named
// namespace (`emu exec`), with environment env. cred nil keeps root; else
// the command runs with cred's uid, gid and groups, set for the whole
// process just before the exec. It returns only on failure.
func ExecIn(name string, argv, env []string, cred *syscall.Credential) error {
	if len(argv) == 0 {
		return errors.New("no command")
	}
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	runtime.LockOSThread() // never unlocked: the process image is replaced
	ns, err := netns.GetFromName(name)
	if err != nil {
		return fmt.Errorf("open netns %s: %w", name, err)
	}
	if err := netns.Set(ns); err != nil {
		return fmt.Errorf("enter netns %s: %w", name, err)
	}
	if cred != nil {
		groups := make([]int, len(cred.Groups))
		for i, g := range cred.Groups {
			groups[i] = int(g)
		}
		// Groups and gid first: once the uid is not root, neither may change.
		if err := syscall.Setgroups(groups); err != nil {
			return fmt.Errorf("setgroups %v: %w", groups, err)
		}
		if err := syscall.Setresgid(int(cred.Gid), int(cred.Gid), int(cred.Gid)); err != nil {
			return fmt.Errorf("setresgid %d: %w", cred.Gid, err)
		}
		if err := syscall.Setresuid(int(cred.Uid), int(cred.Uid), int(cred.Uid)); err != nil {
			return fmt.Errorf("setresuid %d: %w", cred.Uid, err)
		}
	}
	return syscall.Exec(bin, argv, env)
}

// StartIn starts cmd with its network namespace set to ns. The fork happens
// on a thread locked inside ns, so only the child lives there.
func StartIn(ns netns.NsHandle, cmd *exec.Cmd) error {
	return nsthread.Run(func() error {
		if err := netns.Set(ns); err != nil {
			return fmt.Errorf("enter netns: %w", err)
		}
		return cmd.Start()
	})
}

// writeSysctl writes a sysctl of the calling thread's network namespace.
func writeSysctl(key, value string) error {
	path := "/proc/sys/" + string(bytes.ReplaceAll([]byte(key), []byte("."), []byte("/")))
	if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
		return fmt.Errorf("sysctl %s=%s: %w", key, value, err)
	}
	return nil
}
