//go:build !linux

package host

// Doctor reports that emu emulates networks only on Linux.
func Doctor() DoctorReport {
	return DoctorReport{CanRun: false, Checks: []Check{{Name: "linux", Required: true,
		Detail: "emu emulates networks only on Linux (network namespaces, netlink, NFQUEUE); config, trace and analyze work here"}}}
}
