package cli

import (
	"fmt"
	"io"
	"sync"

	"github.com/spf13/cobra"

	"github.com/dc-emu/emu/emu/endpoint"
)

// newEndpointCmd is the endpoint mode `emu run` re-executes emu in, inside
// a node's namespace; its protocol is documented in package endpoint.
func newEndpointCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:    "endpoint",
		Short:  "Run one endpoint of a flow (started by emu run; JSON lines on stdout)",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	c.AddCommand(newEndpointServerCmd(e), newEndpointClientCmd(e))
	return c
}

func newEndpointServerCmd(e *env) *cobra.Command {
	var f endpoint.ServerFlags
	c := &cobra.Command{
		Use:   "server",
		Short: "Serve /bytes/N and files until SIGTERM; prints {\"event\":\"ready\",...}",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return usagef("emu endpoint server: %v", err)
			}
			out := &lineWriter{w: e.stdout}
			cfg.Log = e.stderr
			cfg.Ready = func(addr string) { out.event(endpoint.ReadyEvent(addr)) }
			cfg.OnConn = func(c endpoint.ConnInfo) { out.event(endpoint.AcceptEvent(c)) }
			if err := endpoint.Serve(e.ctx, cfg); err != nil {
				return err
			}
			return out.err
		},
	}
	f.Bind(c.Flags())
	return c
}

func newEndpointClientCmd(e *env) *cobra.Command {
	var f endpoint.ClientFlags
	c := &cobra.Command{
		Use:   "client",
		Short: "Download one URL; prints progress lines and one done line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.Config()
			if err != nil {
				return usagef("emu endpoint client: %v", err)
			}
			out := &lineWriter{w: e.stdout}
			cfg.Log = e.stderr
			r, err := endpoint.Download(e.ctx, cfg, func(p endpoint.Progress) {
				out.event(endpoint.ProgressEvent(p))
			})
			out.event(endpoint.DoneEvent(r, err))
			if err != nil {
				return err
			}
			return out.err
		},
	}
	f.Bind(c.Flags())
	return c
}

// lineWriter writes one event per line from any goroutine and keeps the
// first write error (a closed stdout means the run is gone).
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (l *lineWriter) event(ev endpoint.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if err := endpoint.WriteEvent(l.w, ev); err != nil {
		l.err = fmt.Errorf("stdout: %w", err)
	}
}
