package main

import (
	"os"
	"regexp"
	"testing"

	"github.com/flagpole/flagpole/config"
)

// TestLoadTestProfile: the load-test profile of bench/README.md is a
// configuration serve takes, and it says what the text says of it.
func TestLoadTestProfile(t *testing.T) {
	b, err := os.ReadFile("../../bench/README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Load-testing a deployment: the profile\n.*?```yaml\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("bench/README.md has no load-test profile (a yaml block under its heading)")
	}
	file := writeFile(t, "loadtest.yaml", string(m[1]))
	fs := newFlagSet("serve", config.Serve)
	cfg, err := parse(fs, []string{"--config", file}, os.Stdout, noEnv)
	if err != nil {
		t.Fatalf("serve refuses the load-test profile: %v", err)
	}
	if cfg.MaxConnsPerIP != 0 || cfg.AccessLog || !cfg.ServerTiming || cfg.AnonRateLimit != 120 {
		t.Errorf("the profile: max_conns_per_ip %d, access_log %v, server_timing %v, anon_rate_limit %d",
			cfg.MaxConnsPerIP, cfg.AccessLog, cfg.ServerTiming, cfg.AnonRateLimit)
	}
}
