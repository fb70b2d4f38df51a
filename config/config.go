// Package config owns flagpole's settings: their defaults, config.yaml,
// the FLAGPOLE_* environment variables and the command-line flags, in
// that order of precedence, and their validation. Nothing else reads the
// environment.
package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"gopkg.in/yaml.v3"
)

// Config is every setting of every command.
type Config struct {
	Config            string        // the file read, if any
	Addr              string        // the API's listen address
	AdminAddr         string        // metrics, health and pprof; empty: off
	DB                string        // database URL: sqlite:FILE or postgres://...
	DBReplica         string        // where the loader reads; empty: DB
	Redis             string        // redis://... for one rate-limit budget across instances; empty: in-process
	RedisPrefix       string        // prefix of the Redis keys; instances that share a budget share it
	RedisTimeout      time.Duration // per rate-limit decision; past it the instance limits in-process
	Refresh           string        // cron schedule of the flag, trend and stats load
	KeyRefresh        string        // cron schedule of the key load
	FullReload        time.Duration // a full flag reload at least this often; 0: only at start
	RateLimit         int           // requests per key per rolling minute, unless the key has its own
	CacheMB           int           // rendered-response cache size
	MaxSnapshotAge    time.Duration // /readyz fails when the snapshot is older; 0: never
	ShutdownTimeout   time.Duration
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	LogFormat         string // json or text
	AccessLog         bool
	SnapshotDaily     bool // serve writes the daily trend snapshot at 00:00 UTC
}

// Default is the configuration with nothing set; config.yaml documents it.
func Default() Config {
	return Config{
		Addr: "127.0.0.1:8080", DB: "sqlite:flagpole.db", Refresh: "@every 10s", KeyRefresh: "@every 5s",
		FullReload: 10 * time.Minute, RateLimit: 60, CacheMB: 64, ShutdownTimeout: 10 * time.Second,
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second,
		IdleTimeout: 120 * time.Second, LogFormat: "json", AccessLog: true, SnapshotDaily: true,
		RedisPrefix: "flagpole:", RedisTimeout: 100 * time.Millisecond,
	}
}

type setting struct {
	key   string // config.yaml key; the flag is the same with - for _
	usage string
	set   func(*Config, string) error
}

func str(p func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *p(c) = v; return nil }
}

func dur(p func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("%q is not a duration such as 30s or 5m", v)
		}
		*p(c) = d
		return nil
	}
}

func num(p func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		*p(c) = n
		return nil
	}
}

func boolean(p func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		*p(c) = b
		return nil
	}
}

var settings = []setting{
	{"addr", "listen address of the API", str(func(c *Config) *string { return &c.Addr })},
	{"admin_addr", "listen address of /metrics, /healthz, /readyz and pprof (empty: off)", str(func(c *Config) *string { return &c.AdminAddr })},
	{"db", "database URL: sqlite:FILE or postgres://...", str(func(c *Config) *string { return &c.DB })},
	{"db_replica", "database URL the loader reads from (a read replica); empty: --db", str(func(c *Config) *string { return &c.DBReplica })},
	{"redis", "redis:// URL for one rate-limit budget across instances (empty: in-process)", str(func(c *Config) *string { return &c.Redis })},
	{"redis_prefix", "prefix of the Redis keys (instances sharing a budget share it)", str(func(c *Config) *string { return &c.RedisPrefix })},
	{"redis_timeout", "per rate-limit decision in Redis; past it the instance limits in-process", dur(func(c *Config) *time.Duration { return &c.RedisTimeout })},
	{"refresh", "cron schedule of the flag, trend and stats load", str(func(c *Config) *string { return &c.Refresh })},
	{"key_refresh", "cron schedule of the API key load", str(func(c *Config) *string { return &c.KeyRefresh })},
	{"full_reload", "reread every flag at least this often (0: only at start)", dur(func(c *Config) *time.Duration { return &c.FullReload })},
	{"rate_limit", "requests per key in any 60 seconds, unless the key has its own", num(func(c *Config) *int { return &c.RateLimit })},
	{"cache_mb", "megabytes of rendered responses to keep", num(func(c *Config) *int { return &c.CacheMB })},
	{"max_snapshot_age", "report not ready when the snapshot is older (0: never)", dur(func(c *Config) *time.Duration { return &c.MaxSnapshotAge })},
	{"shutdown_timeout", "how long requests may finish after SIGTERM", dur(func(c *Config) *time.Duration { return &c.ShutdownTimeout })},
	{"read_header_timeout", "time to read a request's headers", dur(func(c *Config) *time.Duration { return &c.ReadHeaderTimeout })},
	{"read_timeout", "time to read a whole request", dur(func(c *Config) *time.Duration { return &c.ReadTimeout })},
	{"write_timeout", "time to write a response", dur(func(c *Config) *time.Duration { return &c.WriteTimeout })},
	{"idle_timeout", "how long an idle keep-alive connection stays open", dur(func(c *Config) *time.Duration { return &c.IdleTimeout })},
	{"log_format", "json or text", str(func(c *Config) *string { return &c.LogFormat })},
	{"access_log", "log one line per request", boolean(func(c *Config) *bool { return &c.AccessLog })},
	{"snapshot_daily", "serve writes the daily trend snapshot at 00:00 UTC", boolean(func(c *Config) *bool { return &c.SnapshotDaily })},
}

func flagName(key string) string { return strings.ReplaceAll(key, "_", "-") }

// EnvName is the environment variable of a setting: FLAGPOLE_ and the key
// in upper case.
func EnvName(key string) string { return "FLAGPOLE_" + strings.ToUpper(key) }

// Bind registers --config and the flags of the named settings on fs.
// Their values are read back by Resolve.
func Bind(fs *flag.FlagSet, keys ...string) {
	def := Default()
	fs.String("config", "", "configuration file (default: config.yaml when present)")
	for _, k := range keys {
		s := find(k)
		if s == nil {
			panic("config: unknown setting " + k)
		}
		fs.String(flagName(k), "", fmt.Sprintf("%s (env %s, default %q)", s.usage, EnvName(k), defaultText(def, k)))
	}
}

func find(key string) *setting {
	for i := range settings {
		if settings[i].key == key {
			return &settings[i]
		}
	}
	return nil
}

func defaultText(c Config, key string) string {
	switch key {
	case "addr":
		return c.Addr
	case "db":
		return c.DB
	case "refresh":
		return c.Refresh
	case "key_refresh":
		return c.KeyRefresh
	case "rate_limit":
		return strconv.Itoa(c.RateLimit)
	case "full_reload":
		return c.FullReload.String()
	}
	return ""
}

// Resolve builds the configuration of a parsed flag set: defaults, then
// the file, then the environment (getenv, normally os.Getenv), then the
// flags given on the command line.
func Resolve(fs *flag.FlagSet, getenv func(string) string) (Config, error) {
	c := Default()
	path, explicit := "", false
	if f := fs.Lookup("config"); f != nil && f.Value.String() != "" {
		path, explicit = f.Value.String(), true
	} else if v := getenv("FLAGPOLE_CONFIG"); v != "" {
		path, explicit = v, true
	} else if _, err := os.Stat("config.yaml"); err == nil {
		path = "config.yaml"
	}
	if path != "" {
		if err := c.readFile(path); err != nil {
			if explicit || !errors.Is(err, os.ErrNotExist) {
				return c, err
			}
		} else {
			c.Config = path
		}
	}
	for _, s := range settings {
		if v := getenv(EnvName(s.key)); v != "" {
			if err := s.set(&c, v); err != nil {
				return c, fmt.Errorf("%s: %w", EnvName(s.key), err)
			}
		}
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		s := find(strings.ReplaceAll(f.Name, "-", "_"))
		if s == nil || err != nil {
			return
		}
		if e := s.set(&c, f.Value.String()); e != nil {
			err = fmt.Errorf("--%s: %w", f.Name, e)
		}
	})
	if err != nil {
		return c, err
	}
	return c, c.Validate()
}

func (c *Config) readFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	for k, v := range m {
		s := find(k)
		if s == nil {
			return fmt.Errorf("config %s: unknown setting %q", path, k)
		}
		text := ""
		if v != nil {
			text = fmt.Sprint(v)
		}
		if err := s.set(c, text); err != nil && text != "" {
			return fmt.Errorf("config %s: %s: %w", path, k, err)
		}
	}
	return nil
}

var scheduleParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month |
	cron.Dow | cron.Descriptor)

// ParseSchedule reads a cron schedule as flagpole takes them: robfig/cron
// descriptors (@every 10s) or five or six fields (seconds first).
func ParseSchedule(spec string) (cron.Schedule, error) { return scheduleParser.Parse(spec) }

// Validate checks every setting.
func (c *Config) Validate() error {
	if _, err := ParseSchedule(c.Refresh); err != nil {
		return fmt.Errorf("refresh %q: %w", c.Refresh, err)
	}
	if _, err := ParseSchedule(c.KeyRefresh); err != nil {
		return fmt.Errorf("key_refresh %q: %w", c.KeyRefresh, err)
	}
	if c.RateLimit < 1 {
		return errors.New("rate_limit must be at least 1")
	}
	if c.CacheMB < 0 {
		return errors.New("cache_mb must be at least 0")
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		return fmt.Errorf("log_format %q: want json or text", c.LogFormat)
	}
	if c.DB == "" {
		return errors.New("db: a database URL is required")
	}
	return nil
}
