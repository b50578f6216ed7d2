package emu

import (
	"testing"

	"github.com/dc-emu/emu/emu/config"
)

// settings parses key=value settings or fails the test.
func settings(t *testing.T, kv ...string) []config.Setting {
	t.Helper()
	out, err := config.ParseSettings(kv)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testConfig is the throughput scenario over constant links with settings.
func testConfig(t *testing.T, kv ...string) config.Config {
	t.Helper()
	sets := settings(t, append([]string{"link.trace=none"}, kv...)...)
	c, err := config.Resolve("throughput", sets)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
