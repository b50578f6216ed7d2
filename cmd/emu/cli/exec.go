package cli

import (
	"fmt"
	"os"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/runstate"
	"github.com/dc-emu/emu/internal/invoker"
	"github.com/dc-emu/emu/topo"
)

func newExecCmd(e *env) *cobra.Command {
	var run string
	var asUser bool
	c := &cobra.Command{
		Use:         "exec NODE -- CMD [ARGS…]",
		Annotations: needsRoot(),
		Short:       "Run a command inside a node's network namespace (as root; --user: as you)",
		Long: `exec runs CMD inside NODE's network namespace (srv, gws, gwc, cli, cli1,
cli2, or a full namespace name) and exits with its status.

CMD runs as root: exec is the Mininet-style escape hatch into the emulated
network, and anything it runs can do what root can (change the node's
qdiscs, routes and sysctls, read and write any file). --user runs CMD as
the user who ran emu through sudo instead (uid, gid and groups; HOME, USER
and LOGNAME theirs), for tools that need no privileges, such as iperf3 or
curl.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash != 1 || len(args) < 2 {
				return usagef("usage: emu exec NODE -- CMD [ARGS…]")
			}
			env, cred := os.Environ(), (*syscall.Credential)(nil)
			if asUser {
				var err error
				if env, cred, err = invokerExec(env); err != nil {
					return err
				}
			}
			_, node, err := runstate.FindNode(args[0], run)
			if err != nil {
				return err
			}
			err = topo.ExecIn(node.Namespace, args[1:], env, cred)
			return fmt.Errorf("exec %s in %s: %w", args[1], node.Name, err)
		},
	}
	c.Flags().StringVar(&run, "run", "", "run id, when several emulations are up")
	c.Flags().BoolVar(&asUser, "user", false, "run CMD as the user who ran emu through sudo, not as root")
	return c
}

// invokerExec returns the environment and credentials that run a command
// of emu exec --user as the user behind sudo: env with HOME, USER and
// LOGNAME the user's.
func invokerExec(env []string) ([]string, *syscall.Credential, error) {
	inv, ok := invoker.FromEnv()
	if !ok {
		return nil, nil, usagef("--user: no user behind sudo to run as (emu runs as root without SUDO_UID and SUDO_GID, or as root through sudo)")
	}
	cred := &syscall.Credential{Uid: uint32(inv.UID), Gid: uint32(inv.GID)}
	for _, g := range inv.Groups() {
		cred.Groups = append(cred.Groups, uint32(g))
	}
	if u, err := user.LookupId(strconv.Itoa(inv.UID)); err == nil {
		env = slices.DeleteFunc(env, func(kv string) bool {
			k, _, _ := strings.Cut(kv, "=")
			return k == "HOME" || k == "USER" || k == "LOGNAME"
		})
		env = append(env, "HOME="+u.HomeDir, "USER="+u.Username, "LOGNAME="+u.Username)
	}
	return env, cred, nil
}

func newAddrCmd(e *env) *cobra.Command {
	var run string
	c := &cobra.Command{
		Use:   "addr NODE",
		Short: "Print a node's IP address",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, node, err := runstate.FindNode(args[0], run)
			if err != nil {
				return err
			}
			if len(node.Addrs) == 0 {
				return fmt.Errorf("node %s has no address", node.Name)
			}
			addr, _, _ := strings.Cut(node.Addrs[0], "/")
			fmt.Fprintln(e.stdout, addr)
			return nil
		},
	}
	c.Flags().StringVar(&run, "run", "", "run id, when several emulations are up")
	return c
}
