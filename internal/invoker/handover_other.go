//go:build !linux

package invoker

import (
	"errors"
	"runtime"
)

// HandOver refuses off Linux, where emu does not act for a user behind
// sudo (see do).
func (inv Invoker) HandOver(string) error {
	return errors.New("invoker: handing files to the user behind sudo is not implemented on " + runtime.GOOS)
}
