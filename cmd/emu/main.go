// Command emu is a single-host, trace-driven network emulator for QUIC and
// TCP over Dual Connectivity, multipath, cellular and satellite paths.
// Everything it does lives in the cli package; main only wires signals,
// root privileges (through sudo for the commands that need root, the
// invoking user's for those that do not) and the exit status.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/dc-emu/emu/cmd/emu/cli"
	"github.com/dc-emu/emu/internal/invoker"
)

func main() {
	switch cmd, p := cli.Privileges(os.Args[1:]); p {
	case cli.Root:
		elevate(cmd, os.Args[1:])
	case cli.User:
		becomeInvoker()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// elevate re-runs emu through sudo when the command needs root (its
// annotation, read by cli.Privileges) and the user is not root, so that
// `bin/emu run` works the same for users and for root (where sudo may not
// even be installed). The absolute path of this binary is passed, so
// sudo's reset PATH does not matter; sudo keeps the working directory, so
// relative paths mean what they meant to the user. Under sudo, emu opens
// the paths the user named with the user's permissions (internal/invoker).
func elevate(cmd string, args []string) {
	if os.Geteuid() == 0 || os.Getenv("EMU_NO_SUDO") != "" {
		return
	}
	sudo, err := exec.LookPath("sudo")
	if err != nil {
		return // cli reports that root is needed
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	fmt.Fprintf(os.Stderr, "emu: %s needs root; running it through sudo: sudo %s\n", cmd, strings.Join(append([]string{self}, args...), " "))
	err = syscall.Exec(sudo, sudoArgv(self, args), os.Environ())
	fmt.Fprintf(os.Stderr, "emu: sudo: %v\n", err)
	os.Exit(1)
}

// sudoArgv is the command line that re-runs self with args through sudo,
// keeping the environment variables emu reads.
func sudoArgv(self string, args []string) []string {
	return append([]string{"sudo", "--preserve-env=EMU_NO_SUDO,QLOGDIR", "--", self}, args...)
}

// becomeInvoker makes a command that needs no root, run through sudo all
// the same (sudo emu analyze DIR), the work of the user behind sudo: the
// whole process takes that user's uid, gid and groups, so it reads and
// writes nothing the user could not, and what it writes is the user's.
// It exits rather than go on as root if that fails.
func becomeInvoker() {
	inv, ok := invoker.FromEnv()
	if !ok {
		return
	}
	// Groups and gid first: once the uid is not root, neither may change.
	err := syscall.Setgroups(inv.Groups())
	if err == nil {
		err = syscall.Setgid(inv.GID)
	}
	if err == nil {
		err = syscall.Setuid(inv.UID)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "emu: becoming uid %d (the user behind sudo): %v\n", inv.UID, err)
		os.Exit(1)
	}
}
