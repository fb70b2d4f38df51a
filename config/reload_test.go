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

// TestReloadOfListenKeepsItsSchedules: listen needs a restart, so a file
// that turns it off leaves the running instance listening, and the
// schedules it leaves to their defaults keep the listening ones (a reload
// had switched them to the polling defaults, six times the transactions
// of an idle instance). A schedule the file sets is applied as written.
func TestReloadOfListenKeepsItsSchedules(t *testing.T) {
	running := Default()
	if err := running.Validate(); err != nil {
		t.Fatal(err)
	}
	next := Default()
	if err := find("listen").set(&next, "false"); err != nil {
		t.Fatal(err)
	}
	if err := next.Validate(); err != nil {
		t.Fatal(err)
	}
	if next.Refresh.Spec != defaultRefresh {
		t.Fatalf("listen false alone: refresh %s, want %s", next.Refresh, defaultRefresh)
	}
	live, restart := Changed(running, next)
	if len(live) != 0 || !slices.Equal(restart, []string{"listen"}) {
		t.Errorf("listen false: live %v restart %v, want none and [listen]", live, restart)
	}
	got := Merge(running, next)
	if !got.Listen || got.Refresh.Spec != defaultListenRefresh || got.KeyRefresh.Spec != defaultListenKeyRefresh {
		t.Errorf("after the reload: listen %v refresh %s key_refresh %s, want true %s %s", got.Listen, got.Refresh,
			got.KeyRefresh, defaultListenRefresh, defaultListenKeyRefresh)
	}

	// The same file with refresh set: that one applies, key_refresh keeps
	// the listening default.
	next = Default()
	for key, text := range map[string]string{"listen": "false", "refresh": "@every 7s"} {
		if err := find(key).set(&next, text); err != nil {
			t.Fatal(err)
		}
	}
	if err := next.Validate(); err != nil {
		t.Fatal(err)
	}
	live, _ = Changed(running, next)
	got = Merge(running, next)
	if !slices.Equal(live, []string{"refresh"}) || got.Refresh.Spec != "@every 7s" || got.KeyRefresh.Spec != defaultListenKeyRefresh {
		t.Errorf("refresh set: live %v, refresh %s key_refresh %s", live, got.Refresh, got.KeyRefresh)
	}
	// And a later reload that drops it again goes back to the default of
	// the running listen.
	again := Default()
	if err := find("listen").set(&again, "false"); err != nil {
		t.Fatal(err)
	}
	if err := again.Validate(); err != nil {
		t.Fatal(err)
	}
	if got = Merge(got, again); got.Refresh.Spec != defaultListenRefresh {
		t.Errorf("refresh dropped again: %s, want %s", got.Refresh, defaultListenRefresh)
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
