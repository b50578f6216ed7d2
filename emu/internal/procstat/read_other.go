//go:build !linux

package procstat

import "errors"

var errUnsupported = errors.New("procstat: /proc readings need Linux")

func ReadThread(pid, tid int) (Reading, error) { return Reading{}, errUnsupported }
func ReadProcess(pid int) (Reading, error)     { return Reading{}, errUnsupported }
func ReadHost() (Host, error)                  { return Host{}, errUnsupported }
func Threads(pid int) ([]int, error)           { return nil, errUnsupported }
func Ksoftirqd() ([]int, error)                { return nil, errUnsupported }
func TID() int                                 { return 0 }
func NameThread(name string) error             { return errUnsupported }
