package config

import "time"

// settings is the table of every setting, in the order -h lists them. A
// row is one setting: its config.yaml key (the flag is the key with - for
// _, the environment variable FLAGPOLE_ and the key in upper case), its
// default, its help text and the field it fills. The field's type is the
// setting's kind: string, int, bool, time.Duration, []string (a list,
// comma-separated in the environment and on the command line) or
// Schedule. A row marked forEveryCommand is a flag of every command that
// opens the database; the others are flags of serve only. Every row
// needs a line in config.yaml (a test checks it), and the settings a
// running serve applies on SIGHUP are listed in live (reload.go).
var settings = []setting{
	row("addr", "127.0.0.1:8080", "listen address of the API", func(c *Config) *string { return &c.Addr }),
	row("admin_addr", "", "listen address of /metrics, /healthz, /readyz and pprof (empty: off)", func(c *Config) *string { return &c.AdminAddr }),
	row("db", "sqlite:flagpole.db", "database URL: sqlite:FILE or postgres://...", func(c *Config) *string { return &c.DB }).forEveryCommand(),
	row("db_file", "", "a file holding the database URL (a Docker or Kubernetes secret); wins over db", func(c *Config) *string { return &c.DBFile }).forEveryCommand(),
	row("db_timeout", 20*time.Second, "the longest a database call may wait for the server (per socket read or write)", func(c *Config) *time.Duration { return &c.DBTimeout }),
	row("db_replica", "", "database URL the loader reads from (a read replica); empty: db", func(c *Config) *string { return &c.DBReplica }),
	row("redis", "", "redis:// URL for one rate-limit budget across instances (empty: in-process)", func(c *Config) *string { return &c.Redis }),
	row("listen", true, "wake the loads when the database changes (PostgreSQL LISTEN, SQLite's change counter); false: poll on the schedules", func(c *Config) *bool { return &c.Listen }),
	row("refresh", Schedule{}, "cron schedule of the flag, trend and stats load: the backstop under listen (default @every 1m), the only clock without it (default @every 10s)", func(c *Config) *Schedule { return &c.Refresh }),
	row("key_refresh", Schedule{}, "cron schedule of the API key load: the backstop under listen (default @every 30s), the bound of a revocation without it (default @every 5s)", func(c *Config) *Schedule { return &c.KeyRefresh }),
	row("full_reload", 10*time.Minute, "reread every flag at least this often (0: only at start)", func(c *Config) *time.Duration { return &c.FullReload }),
	row("rate_limit", 60, "requests per key in any 60 seconds, unless the key has its own", func(c *Config) *int { return &c.RateLimit }),
	row("cache_mb", 64, "megabytes of rendered responses to keep", func(c *Config) *int { return &c.CacheMB }),
	row("max_snapshot_age", time.Duration(0), "report not ready when the snapshot is older (0: never)", func(c *Config) *time.Duration { return &c.MaxSnapshotAge }),
	row("read_header_timeout", 5*time.Second, "time to read a request's headers", func(c *Config) *time.Duration { return &c.ReadHeaderTimeout }),
	row("read_timeout", 5*time.Second, "time to read a whole request", func(c *Config) *time.Duration { return &c.ReadTimeout }),
	row("write_timeout", 30*time.Second, "time to write a response", func(c *Config) *time.Duration { return &c.WriteTimeout }),
	row("idle_timeout", 120*time.Second, "how long an idle keep-alive connection stays open", func(c *Config) *time.Duration { return &c.IdleTimeout }),
	row("shutdown_delay", 5*time.Second, "after SIGTERM, how long /readyz answers 503 while the API still serves, so that load balancers take the instance out first (a second SIGTERM skips it)", func(c *Config) *time.Duration { return &c.ShutdownDelay }),
	row("shutdown_timeout", 10*time.Second, "how long requests in flight may finish once the API stops accepting", func(c *Config) *time.Duration { return &c.ShutdownTimeout }),
	row("log_format", "auto", "json, text, or auto: text when standard error is a terminal, else json", func(c *Config) *string { return &c.LogFormat }),
	row("log_level", "info", "debug, info, warn or error: the least level of the log lines written (the access log aside)", func(c *Config) *string { return &c.LogLevel }),
	row("server_timing", false, "answers of the routes that take a key carry Server-Timing (auth, limiter, cache hit or miss, render, total): for load tests", func(c *Config) *bool { return &c.ServerTiming }),
	row("access_log", true, "log one line per request", func(c *Config) *bool { return &c.AccessLog }),
	row("snapshot_daily", true, "serve writes the daily trend snapshot at 00:00 UTC", func(c *Config) *bool { return &c.SnapshotDaily }),
	row("redis_prefix", "flagpole:", "prefix of the Redis keys (instances sharing a budget share it)", func(c *Config) *string { return &c.RedisPrefix }),
	row("redis_timeout", 100*time.Millisecond, "per rate-limit decision in Redis; past it the instance limits in-process", func(c *Config) *time.Duration { return &c.RedisTimeout }),
	row("max_conns", 0, "open connections of the API at most (0: the open-file limit less a reserve)", func(c *Config) *int { return &c.MaxConns }),
	row("max_conns_per_ip", 256, "open connections of one client address at most, an IPv6 client counted by its /64; past it the address's longest idle one is closed (0: no cap; trusted proxies are exempt)", func(c *Config) *int { return &c.MaxConnsPerIP }),
	row("max_streams_per_key", 5, "live streams (/api/public/stream) one key holds open at once on one instance", func(c *Config) *int { return &c.MaxStreamsPerKey }),
	row("anon_rate_limit", 120, "requests a minute per client address without a valid key, sustained, after a burst of as many (so up to twice it less one in 60 s; 0: off)", func(c *Config) *int { return &c.AnonRateLimit }),
	row("trusted_proxies", []string(nil), "CIDRs of proxies whose X-Forwarded-For names the client", func(c *Config) *[]string { return &c.TrustedProxies }),
}
