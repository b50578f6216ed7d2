package mptcp

// Kernel is what a namespace's MPTCP sysctls say (net.mptcp.*; each
// network namespace has its own).
type Kernel struct {
	// Enabled is net.mptcp.enabled: new sockets may use MPTCP.
	Enabled bool
	// PathManager is net.mptcp.path_manager (Linux 6.15+; empty before),
	// PathManagers net.mptcp.available_path_managers.
	PathManager  string
	PathManagers []string
	// Scheduler is net.mptcp.scheduler, the packet scheduler of new
	// connections; Schedulers net.mptcp.available_schedulers (Linux 6.6+).
	Scheduler  string
	Schedulers []string
}
