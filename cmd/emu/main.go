// Command emu is a single-host, trace-driven network emulator for QUIC and
// TCP over Dual Connectivity, multipath, cellular and satellite paths.
// Everything it does lives in the cli package; main only wires signals,
// root privileges and the exit status.
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
)

func main() {
	elevate(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// elevate re-runs emu through sudo when the command needs root (its
// annotation, read by cli.NeedsRoot) and the user is not root, so that
// `bin/emu run` works the same for users and for root (where sudo may not
// even be installed). The absolute path of this binary is passed, so
// sudo's reset PATH does not matter; sudo keeps the working directory, so
// relative paths mean what they meant to the user. Under sudo, emu opens
// the paths the user named with the user's permissions (internal/invoker).
func elevate(args []string) {
	if os.Geteuid() == 0 || os.Getenv("EMU_NO_SUDO") != "" {
		return
	}
	cmd, need := cli.NeedsRoot(args)
	if !need {
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
