//go:build !linux

package endpoint

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// The endpoints need Linux socket options and process control; elsewhere
// they fail with this error so the rest of emu (analysis) still builds.
var errNotLinux = errors.New("endpoint: needs Linux")

func setCongestion(fd int, cc string) (string, error)                { return "", errNotLinux }
func setNotSentLowat(fd, n int) error                                { return errNotLinux }
func availableCC() string                                            { return "unknown" }
func withFD(c syscall.Conn, f func(fd int) error) error              { return errNotLinux }
func rcvBuf(c syscall.Conn) (int, error)                             { return 0, errNotLinux }
func setRcvBuf(c syscall.Conn, n int, allowForceless bool) error     { return errNotLinux }
func childAttr() *syscall.SysProcAttr                                { return &syscall.SysProcAttr{Setpgid: true} }
func killGroup(pid int, sig syscall.Signal) error                    { return errNotLinux }
func punchHole(f *os.File, n int64) error                            { return errNotLinux }
func waitWritable(rc syscall.RawConn)                                {}
func childRcvBuf(ctx context.Context, ch *child, n int) (int, error) { return 0, errNotLinux }
