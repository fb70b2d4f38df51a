package config

import (
	"slices"
	"testing"
)

// TestChangedAndMerge: Changed splits the settings that differ into the
// live and the restart ones; Merge takes the live ones from the new
// configuration and keeps the rest, trusted proxies parsed.
func TestChangedAndMerge(t *testing.T) {
	running := Default()
	if err := running.Validate(); err != nil {
		t.Fatal(err)
	}
	next := running
	for key, text := range map[string]string{"rate_limit": "90", "refresh": "@every 2s", "trusted_proxies": "10.0.0.0/8",
		"log_level": "warn", "addr": "0.0.0.0:9999", "redis": "redis://r:6379/0", "max_conns_per_ip": "7"} {
		if err := find(key).set(&next, text); err != nil {
			t.Fatal(err)
		}
	}
	if err := next.Validate(); err != nil {
		t.Fatal(err)
	}
	live, restart := Changed(running, next)
	if want := []string{"refresh", "rate_limit", "log_level", "trusted_proxies"}; !slices.Equal(live, want) {
		t.Errorf("live %v, want %v", live, want)
	}
	if want := []string{"addr", "redis", "max_conns_per_ip"}; !slices.Equal(restart, want) {
		t.Errorf("restart %v, want %v", restart, want)
	}
	got := Merge(running, next)
	if got.RateLimit != 90 || got.Refresh.Spec != "@every 2s" || got.LogLevel != "warn" || !slices.Equal(got.TrustedProxies, []string{"10.0.0.0/8"}) {
		t.Errorf("Merge left a live setting out: %+v", got)
	}
	if got.Addr != running.Addr || got.Redis != running.Redis || got.MaxConnsPerIP != running.MaxConnsPerIP {
		t.Errorf("Merge took a setting that needs a restart: addr %q redis %q max_conns_per_ip %d", got.Addr, got.Redis, got.MaxConnsPerIP)
	}
	if len(got.Proxies) != 1 {
		t.Errorf("Merge's Proxies %v, want the parsed trusted_proxies", got.Proxies)
	}
	if !Live("rate_limit") || Live("addr") || Live("nope") {
		t.Error("Live answers wrongly")
	}
}

// TestLiveSettings: the settings a running serve applies on SIGHUP are
// exactly these; a new setting is a restart one until serve applies it
// (cmd/flagpole's reload) and this list says so.
func TestLiveSettings(t *testing.T) {
	var live []string
	for _, k := range Keys() {
		if Live(k) {
			live = append(live, k)
		}
	}
	want := []string{"refresh", "key_refresh", "rate_limit", "cache_mb", "max_snapshot_age", "shutdown_delay",
		"shutdown_timeout", "log_level", "server_timing", "access_log", "max_streams_per_key", "anon_rate_limit", "trusted_proxies"}
	if !slices.Equal(live, want) {
		t.Errorf("live settings %v, want %v", live, want)
	}
}

// TestLogLevel: log_level takes the four levels in any case, nothing else.
func TestLogLevel(t *testing.T) {
	for text, ok := range map[string]bool{"debug": true, "INFO": true, "warn": true, "error": true, "warning": false, "": false} {
		c := Default()
		c.LogLevel = text
		if err := c.Validate(); (err == nil) != ok {
			t.Errorf("log_level %q: %v, want ok %v", text, err, ok)
		}
	}
}
