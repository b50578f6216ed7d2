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
	"slices"
	"syscall"

	"github.com/dc-emu/emu/cmd/emu/cli"
)

// needsRoot lists the subcommands that change the kernel's networking.
var needsRoot = []string{"up", "down", "exec", "run", "sweep", "calibrate", "clean", "doctor"}

func main() {
	elevate(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// elevate re-runs emu through sudo when a subcommand needs root and the user
// is not root, so `./emu run` works the same for users and for root (where
// sudo may not even be installed). The absolute path of this binary is
// passed, so sudo's reset PATH does not matter.
func elevate(args []string) {
	if os.Geteuid() == 0 || len(args) == 0 || !slices.Contains(needsRoot, args[0]) || os.Getenv("EMU_NO_SUDO") != "" {
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
	fmt.Fprintf(os.Stderr, "emu: %s needs root; running it through sudo\n", args[0])
	argv := append([]string{"sudo", "--preserve-env=EMU_NO_SUDO,QLOGDIR", "--", self}, args...)
	err = syscall.Exec(sudo, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "emu: sudo: %v\n", err)
	os.Exit(1)
}
