package endpoint

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dc-emu/emu/internal/invoker"
)

// keyLogEnv is the environment variable GnuTLS (and so gtlsserver and
// gtlsclient) writes its key log to; Go's endpoints use
// tls.Config.KeyLogWriter, which writes the same format.
const keyLogEnv = "SSLKEYLOGFILE"

// openKeyLog opens the key log at path for appending (nil for no path).
// Each secret is one Write of one line to an O_APPEND file, so connections
// logging at once never interleave and a killed endpoint loses nothing.
func openKeyLog(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := invoker.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("keylog: %w", err)
	}
	return f, nil
}

// keyLogEnviron is the environment of an ngtcp2 child that writes its key
// log to path (the child runs in another directory, so the path is made
// absolute); nil, the parent's environment, for no path.
func keyLogEnviron(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("keylog: %w", err)
	}
	// Created here with the mode Go's endpoints use; GnuTLS appends to it.
	f, err := openKeyLog(abs)
	if err != nil {
		return nil, err
	}
	f.Close()
	return append(os.Environ(), keyLogEnv+"="+abs), nil
}

// keyLogWriter is f as a tls.Config.KeyLogWriter: an untyped nil when f is
// nil, because a typed nil *os.File would make crypto/tls try to write.
func keyLogWriter(f *os.File) io.Writer {
	if f == nil {
		return nil
	}
	return f
}
