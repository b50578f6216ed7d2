//go:build !linux

package invoker

import (
	"errors"
	"runtime"
)

// do refuses: only Linux lets one thread take another user's filesystem
// identity, and emu's commands that run as root need Linux anyway. Root
// does not open a user's paths with its own permissions instead.
func (inv Invoker) do(func() error) error {
	return errors.New("invoker: opening files as the user behind sudo is not implemented on " + runtime.GOOS)
}
