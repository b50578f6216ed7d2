package endpoint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ngtcp2ReadyTimeout bounds how long gtlsserver may take to bind its port.
const ngtcp2ReadyTimeout = 5 * time.Second

// ngtcp2GSODatagrams is how many datagrams gtlsserver may send in one GSO
// call. Its default, 64, makes a single 64 KB skb of a burst, and a path
// that passes no PDCP proxy (whose queues segment) carries it whole to the
// link's rate limiter, which can only release it whole: 78 ms of a
// 6.67 Mbit/s link leaving at once, and the saturated-rate check read
// 0.90-0.92 of that link's rate for a link that carried 98 % of it. Four
// (5 KB, less than that link sends in the sampler's 10 ms) keep the
// limiter exact (0.998-0.999 at two runs at once); one datagram per call
// costs enough system calls that two ngtcp2 fairness runs at once on two
// cores push the delay lines' p99 lateness to 0.64-0.90 ms (0.29-0.42 with
// four).
const ngtcp2GSODatagrams = 4

// serveNgtcp2 runs gtlsserver as a child with a document root holding
// /bytes/N as sparse files, and moves its qlog to cfg.QlogFile at the end.
func serveNgtcp2(ctx context.Context, cfg *ServerConfig) error {
	bin, err := FindNgtcp2(Ngtcp2Server)
	if err != nil {
		return err
	}
	if err := absPaths(&cfg.KeyFile, &cfg.CertFile, &cfg.QlogFile, &cfg.KeyLogFile); err != nil {
		return err
	}
	ap := netip.MustParseAddrPort(cfg.Listen) // validated
	port := ap.Port()
	if port == 0 {
		if port, err = freeUDPPort(ap.Addr()); err != nil {
			return err
		}
	}
	htdocs, err := os.MkdirTemp("", "emu-ngtcp2-htdocs-")
	if err != nil {
		return fmt.Errorf("htdocs: %w", err)
	}
	defer os.RemoveAll(htdocs)
	if err := makeHtdocs(htdocs, cfg.Root, append([]int64{UnboundedSize}, cfg.Sizes...)); err != nil {
		return err
	}
	var qdir string
	if cfg.QlogFile != "" {
		// Next to the destination, so the final move is a rename.
		if qdir, err = os.MkdirTemp(filepath.Dir(cfg.QlogFile), ".ngtcp2-qlog-"); err != nil {
			return fmt.Errorf("qlog: %w", err)
		}
		defer os.RemoveAll(qdir)
	}
	args := []string{"-q", "--htdocs=" + htdocs, "--cc=" + cfg.CC, "--max-gso-dgrams=" + strconv.Itoa(ngtcp2GSODatagrams)}
	if qdir != "" {
		args = append(args, "--qlog-dir="+qdir)
	}
	args = append(args, ap.Addr().String(), strconv.Itoa(int(port)), cfg.KeyFile, cfg.CertFile)
	env, err := keyLogEnviron(cfg.KeyLogFile)
	if err != nil {
		return err
	}
	ch, err := startChild(bin, args, htdocs, env, cfg.Log)
	if err != nil {
		return err
	}
	if err := waitUDPBound(ctx, ch, port); err != nil {
		ch.kill()
		return err
	}
	cfg.ready(netip.AddrPortFrom(ap.Addr(), port).String())

	var runErr error
	select {
	case <-ctx.Done():
		ch.stop(syscall.SIGINT, shutdownGrace)
	case <-ch.done:
		runErr = ch.exitError()
	}
	if qdir == "" {
		return runErr
	}
	return errors.Join(runErr, collectQlogs(qdir, cfg.QlogFile))
}

// makeHtdocs fills dir with bytes/N sparse files for each size and, when
// root is set, a symlink to each entry of root.
func makeHtdocs(dir, root string, sizes []int64) error {
	bdir := filepath.Join(dir, "bytes")
	if err := os.Mkdir(bdir, 0o755); err != nil {
		return fmt.Errorf("htdocs: %w", err)
	}
	for _, n := range sizes {
		f, err := os.Create(filepath.Join(bdir, strconv.FormatInt(n, 10)))
		if err != nil {
			return fmt.Errorf("htdocs: %w", err)
		}
		err = f.Truncate(n) // a hole: no disk used, reads as zeros
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("htdocs: sparse file of %d bytes: %w", n, err)
		}
	}
	if root == "" {
		return nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("root: %w", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return fmt.Errorf("root: %w", err)
	}
	for _, e := range entries {
		if e.Name() == "bytes" {
			return fmt.Errorf("root %s: has an entry \"bytes\", which would hide /bytes/N", root)
		}
		if err := os.Symlink(filepath.Join(abs, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("htdocs: %w", err)
		}
	}
	return nil
}

// freeUDPPort asks the kernel for a UDP port that is free right now on ip.
func freeUDPPort(ip netip.Addr) (uint16, error) {
	c, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(ip, 0)))
	if err != nil {
		return 0, fmt.Errorf("find a free UDP port on %s: %w", ip, err)
	}
	defer c.Close()
	return uint16(c.LocalAddr().(*net.UDPAddr).Port), nil
}

// waitUDPBound waits until the child has a UDP socket bound to port, read
// from the child's own view of its network namespace.
func waitUDPBound(ctx context.Context, ch *child, port uint16) error {
	deadline := time.Now().Add(ngtcp2ReadyTimeout)
	pid := ch.cmd.Process.Pid
	for {
		bound, err := udpPortBound(pid, port)
		if err != nil {
			return err
		}
		if bound {
			return nil
		}
		select {
		case <-ch.done:
			return ch.exitError()
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not bind UDP port %d within %v", ch.name, port, ngtcp2ReadyTimeout)
		}
	}
}

// udpPortBound looks for a UDP socket on local port in /proc/PID/net/udp{,6}.
func udpPortBound(pid int, port uint16) (bool, error) {
	want := fmt.Sprintf(":%04X", port)
	for _, name := range []string{"udp", "udp6"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, name))
		if errors.Is(err, os.ErrNotExist) {
			continue // no IPv6, or the child is gone (the caller notices)
		}
		if err != nil {
			return false, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 1 && strings.HasSuffix(fields[1], want) {
				f.Close()
				return true, nil
			}
		}
		f.Close()
	}
	return false, nil
}

// collectQlogs moves the files gtlsserver wrote into qdir (one per
// connection, named by its connection ID) to path, path's .2 name, ... in
// the order the connections ended.
func collectQlogs(qdir, path string) error {
	entries, err := os.ReadDir(qdir)
	if err != nil {
		return fmt.Errorf("qlog: %w", err)
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		files = append(files, file{e.Name(), info.ModTime()})
	}
	sort.Slice(files, func(i, j int) bool {
		if !files[i].mod.Equal(files[j].mod) {
			return files[i].mod.Before(files[j].mod)
		}
		return files[i].name < files[j].name
	})
	var errs []error
	for i, f := range files {
		if err := os.Rename(filepath.Join(qdir, f.name), numberedPath(path, i+1)); err != nil {
			errs = append(errs, fmt.Errorf("qlog: %w", err))
		}
	}
	return errors.Join(errs...)
}
