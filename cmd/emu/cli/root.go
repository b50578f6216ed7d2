package cli

import (
	"fmt"
	"os"
)

// requireRoot fails with a hint when a command that changes the kernel's
// networking runs without root.
func requireRoot(cmd string) error {
	if os.Geteuid() == 0 {
		return nil
	}
	exe, _ := os.Executable()
	return fmt.Errorf("emu %s needs root (network namespaces, qdiscs, NFQUEUE); run: sudo %s %s …", cmd, exe, cmd)
}
