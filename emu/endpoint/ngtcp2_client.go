package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// ngtcp2Poll is how often the size of gtlsclient's download is read.
	ngtcp2Poll = 100 * time.Millisecond
	// punchEvery is how much counted data may pile up on disk in a
	// duration-limited download before its blocks are freed.
	punchEvery = 64 << 20
)

// downloadNgtcp2 runs gtlsclient and follows the size of the file it
// downloads into.
func downloadNgtcp2(ctx context.Context, cfg *ClientConfig, m *meter) (Result, error) {
	rcvbuf := 0 // the socket's SO_RCVBUF once the child has one
	end := func(r Result, err error) (Result, error) {
		r.CC, r.RcvBufBytes = cfg.CC, rcvbuf
		return r, err
	}
	fail := func(err error) (Result, error) {
		return end(m.finish(time.Now(), endError, unknownSize, err))
	}
	bin, err := FindNgtcp2(Ngtcp2Client)
	if err != nil {
		return fail(err)
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return fail(err)
	}
	if err := absPaths(&cfg.QlogFile, &cfg.KeyLogFile); err != nil {
		return fail(err)
	}
	dl, err := os.MkdirTemp("", "emu-ngtcp2-dl-")
	if err != nil {
		return fail(fmt.Errorf("download dir: %w", err))
	}
	defer os.RemoveAll(dl)
	env, err := keyLogEnviron(cfg.KeyLogFile)
	if err != nil {
		return fail(err)
	}
	ch, err := startChild(bin, ngtcp2ClientArgs(cfg, u, dl), dl, env, cfg.Log)
	if err != nil {
		return fail(err)
	}
	defer ch.kill()
	force := 0
	if cfg.RcvBuf == RcvBufLarge {
		force = largeRcvBuf
	}
	// A buffer asked for that cannot be had fails the download; the
	// default is only read, and an unread one is no reason to stop.
	if rcvbuf, err = childRcvBuf(ctx, ch, force); err != nil {
		if force > 0 || errors.Is(err, errInterrupted) {
			return fail(fmt.Errorf("rcvbuf %s: %w", cfg.RcvBuf, err))
		}
		fmt.Fprintf(cfg.Log, "endpoint: gtlsclient's receive buffer not read: %v\n", err)
	}

	f := &followedFile{path: filepath.Join(dl, downloadName(u.Path)), punch: cfg.Duration > 0, log: cfg.Log}
	defer f.close()
	expected := cfg.Size
	if _, ok := bytesPathSize(u.Path); !ok && expected == 0 {
		expected = unknownSize // gtlsclient does not tell the Content-Length
	}
	var window <-chan time.Time
	if !m.windowEnd.IsZero() {
		t := time.NewTimer(time.Until(m.windowEnd))
		defer t.Stop()
		window = t.C
	}
	silentUntil := m.start.Add(cfg.HandshakeTimeout + 2*time.Second)
	tick := time.NewTicker(ngtcp2Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			now := time.Now()
			f.sample(m, now)
			ch.stop(syscall.SIGINT, clientCloseTimeout)
			return end(m.finish(now, endError, expected, fmt.Errorf("%w: %w", errInterrupted, context.Cause(ctx))))
		case <-window:
			f.sample(m, m.windowEnd)
			ch.stop(syscall.SIGINT, clientCloseTimeout)
			return end(m.finish(m.windowEnd, endWindow, expected, nil))
		case <-ch.done:
			now := ch.exited
			f.sampleFinal(m, now)
			reason, err := endEOF, ngtcp2Failure(ch, cfg, u.Host, m.bytes.Load())
			if err != nil {
				reason = endError
			}
			return end(m.finish(now, reason, expected, err))
		case now := <-tick.C:
			f.sample(m, now)
			if m.bytes.Load() == 0 && now.After(silentUntil) {
				ch.kill()
				return end(m.finish(now, endError, expected, fmt.Errorf(
					"handshake timeout: no data from %s within %v (handshake not completed or server silent)", u.Host, cfg.HandshakeTimeout)))
			}
		}
	}
}

// ngtcp2ClientArgs maps the configuration onto gtlsclient's flags.
func ngtcp2ClientArgs(cfg *ClientConfig, u *url.URL, dl string) []string {
	args := []string{"-q", "--exit-on-all-streams-close", "--download=" + dl, "--cc=" + cfg.CC,
		"--handshake-timeout=" + ms(cfg.HandshakeTimeout), "--timeout=" + ms(cfg.IdleTimeout)}
	if cfg.QlogFile != "" {
		args = append(args, "--qlog-file="+cfg.QlogFile)
	}
	if cfg.AckThresh > 0 {
		args = append(args, "--ack-thresh="+strconv.Itoa(cfg.AckThresh))
	}
	if cfg.RcvBuf == RcvBufLarge {
		args = append(args,
			"--max-data="+strconv.Itoa(largeConnWindow), "--max-window="+strconv.Itoa(largeConnWindow),
			"--max-stream-data-bidi-local="+strconv.Itoa(largeStreamWindow), "--max-stream-window="+strconv.Itoa(largeStreamWindow))
	}
	return append(args, u.Hostname(), u.Port(), u.String())
}

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + "ms" }

// downloadName is the file gtlsclient saves a path as.
func downloadName(p string) string {
	if p == "" || strings.HasSuffix(p, "/") {
		return "index.html"
	}
	return path.Base(p)
}

// ngtcp2Failure tells from how gtlsclient ended whether the download
// failed. It exits 0 even after handshake and idle timeouts, so its
// stderr (empty with -q unless something went wrong) decides.
func ngtcp2Failure(ch *child, cfg *ClientConfig, addr string, got int64) error {
	msg := ch.stderr.String()
	switch {
	case strings.Contains(msg, "ERR_HANDSHAKE_TIMEOUT"):
		return fmt.Errorf("handshake timeout: no QUIC handshake with %s within %v (is a QUIC server listening there?)", addr, cfg.HandshakeTimeout)
	case strings.Contains(msg, "ERR_IDLE_CLOSE"):
		return fmt.Errorf("server gone: no packet from %s for %v (idle timeout) after %d bytes", addr, cfg.IdleTimeout, got)
	case ch.err != nil || msg != "":
		return fmt.Errorf("after %d bytes: %w", got, ch.exitError())
	}
	return nil
}

// followedFile is gtlsclient's download as seen from outside: its size is
// the count; in duration-limited downloads the counted part is punched out
// so long flows use no disk.
type followedFile struct {
	path    string
	punch   bool
	punched int64
	f       *os.File
	log     io.Writer
	noPunch bool
}

// size returns the file's size and modification time; a file not yet
// created has size 0.
func (ff *followedFile) size() (int64, time.Time, error) {
	st, err := os.Stat(ff.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, time.Time{}, nil
	}
	if err != nil {
		return 0, time.Time{}, err
	}
	return st.Size(), st.ModTime(), nil
}

// sample counts the file's size as arrived by now.
func (ff *followedFile) sample(m *meter, now time.Time) {
	n, _, err := ff.size()
	if err != nil {
		return // counted at the next poll
	}
	m.set(n, now)
	ff.maybePunch(n)
}

// sampleFinal counts the final size. Without punched holes the file's
// modification time is the last write, more precise than the poll.
func (ff *followedFile) sampleFinal(m *meter, exited time.Time) {
	n, mod, err := ff.size()
	if err != nil {
		return
	}
	at := exited
	if ff.punched == 0 && !mod.IsZero() {
		// mod is wall clock; move it onto m's monotonic timeline.
		if t := m.start.Add(mod.Sub(m.start.Round(0))); t.Before(exited) && !t.Before(m.start) {
			at = t
		}
	}
	// The modification time comes from the kernel's coarse clock (a tick
	// behind): it can read before the poll that saw the bytes before the
	// last write, and the receive log's time must not go back.
	if at.Before(m.last) {
		at = m.last
	}
	m.set(n, at)
}

func (ff *followedFile) maybePunch(n int64) {
	if !ff.punch || ff.noPunch || n-ff.punched < punchEvery {
		return
	}
	if ff.f == nil {
		f, err := os.OpenFile(ff.path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		ff.f = f
	}
	upto := n &^ (1<<20 - 1)
	if err := punchHole(ff.f, upto); err != nil {
		fmt.Fprintf(ff.log, "endpoint: %v; the download stays on disk\n", err)
		ff.noPunch = true
		return
	}
	ff.punched = upto
}

func (ff *followedFile) close() {
	if ff.f != nil {
		ff.f.Close()
	}
}
