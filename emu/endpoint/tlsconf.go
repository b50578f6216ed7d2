package endpoint

import (
	"crypto/tls"
	"os"
)

// clientTLS is the TLS 1.3 configuration of the Go clients: the CA file's
// certificates as roots and, with a key log file, every secret appended
// to it. The caller calls closeKeys when the connections are done.
func clientTLS(cfg *ClientConfig) (conf *tls.Config, closeKeys func(), err error) {
	pool, err := loadCAPool(cfg.CAFile)
	if err != nil {
		return nil, nil, err
	}
	keys, err := openKeyLog(cfg.KeyLogFile)
	if err != nil {
		return nil, nil, err
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13, KeyLogWriter: keyLogWriter(keys)}, closer(keys), nil
}

// serverTLS is the TLS 1.3 configuration of the Go servers: their
// certificate and, with a key log file, every secret appended to it. The
// caller calls closeKeys when the server is done.
func serverTLS(cfg *ServerConfig) (conf *tls.Config, closeKeys func(), err error) {
	cert, err := loadServerCert(cfg.CertFile, cfg.KeyFile)
	if err != nil {
		return nil, nil, err
	}
	keys, err := openKeyLog(cfg.KeyLogFile)
	if err != nil {
		return nil, nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13, KeyLogWriter: keyLogWriter(keys)}, closer(keys), nil
}

// closer closes the key log f, if there is one.
func closer(f *os.File) func() {
	return func() {
		if f != nil {
			f.Close()
		}
	}
}
