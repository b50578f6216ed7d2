package host

import (
	"bytes"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/dc-emu/emu/emu/results"
)

// CollectVersions reads the build information of this binary, the running
// kernel's release and, if installed, the ngtcp2 examples' package version.
func CollectVersions() results.Versions {
	v := results.Versions{Emu: "(devel)", Go: runtime.Version(), QuicGo: "unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v.Emu = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v.Emu += "+" + s.Value[:12]
			}
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/quic-go/quic-go" {
				v.QuicGo = d.Version
			}
		}
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		v.Kernel = string(bytes.TrimRight(u.Release[:], "\x00"))
	}
	v.Ngtcp2 = ngtcp2Version()
	return v
}

// ngtcp2Version asks dpkg for the version of Debian's ngtcp2 examples; the
// binaries themselves have no --version flag.
func ngtcp2Version() string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "ngtcp2-client").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
