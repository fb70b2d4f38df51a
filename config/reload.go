package config

import (
	"fmt"
	"log/slog"
	"strings"
)

// live are the settings a running serve applies when SIGHUP makes it read
// its configuration again; any other needs a restart. A setting joins
// when serve applies it (cmd/flagpole's reload) and its tests say so.
var live = map[string]bool{
	"refresh": true, "key_refresh": true, "rate_limit": true, "cache_mb": true, "max_snapshot_age": true,
	"shutdown_delay": true, "shutdown_timeout": true, "log_level": true, "server_timing": true, "access_log": true,
	"max_streams_per_key": true, "anon_rate_limit": true, "trusted_proxies": true,
}

// Changed lists the settings whose values differ between running and
// next, split into those a running serve applies on SIGHUP (changed) and
// those that need a restart, each in the table's order.
func Changed(running, next Config) (changed, restart []string) {
	next = next.underListen(running.Listen)
	for i := range settings {
		s := &settings[i]
		if s.get(&running) == s.get(&next) {
			continue
		}
		if Live(s.key) {
			changed = append(changed, s.key)
		} else {
			restart = append(restart, s.key)
		}
	}
	return changed, restart
}

// Live reports whether a running serve applies the setting key when it
// reads its configuration again.
func Live(key string) bool { return live[key] && find(key) != nil }

// Overridden lists the settings that a flag given on the command line, or
// a FLAGPOLE_ variable, sets: they win over the file, so editing the file
// does not change them.
func Overridden(given map[string]bool, getenv func(string) string) []string {
	var out []string
	for _, s := range settings {
		if given[FlagName(s.key)] || getenv(EnvName(s.key)) != "" {
			out = append(out, s.key)
		}
	}
	return out
}

// ParseLevel reads log_level: debug, info, warn or error.
func ParseLevel(text string) (slog.Level, error) {
	switch strings.ToLower(text) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("log_level %q: want debug, info, warn or error", text)
}

// Merge is running with every live setting taken from next, which
// Validate has checked: what a running serve runs with after it read next
// from its file. The settings that need a restart keep running's values,
// and a schedule next leaves to its default takes the default of the
// running listen, not of next's (which needs a restart).
func Merge(running, next Config) Config {
	next = next.underListen(running.Listen)
	out := running
	out.TrustedProxies = append([]string(nil), running.TrustedProxies...)
	for i := range settings {
		if s := &settings[i]; Live(s.key) {
			if err := s.set(&out, s.get(&next)); err != nil {
				panic("config: a setting does not read its own text: " + s.key + ": " + err.Error())
			}
		}
	}
	out.Proxies = next.Proxies
	return out
}
