// Package config owns flagpole's settings: their defaults, config.yaml,
// the FLAGPOLE_* environment variables and the command-line flags, in
// that order of precedence, and their validation. One table (settings.go)
// drives all of them. Nothing else reads the environment.
package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/flagpole/flagpole/config/addrset"
)

// Config is every setting of every command.
type Config struct {
	Config            string        // the file read, if any
	Addr              string        // the API's listen address
	AdminAddr         string        // metrics, health and pprof; empty: off
	DB                string        // database URL: sqlite:FILE or postgres://...
	DBReplica         string        // where the loader reads; empty: DB
	DBFile            string        // a file holding the database URL; when set it wins over DB
	DBTimeout         time.Duration // the longest one database socket operation may wait for the server
	Redis             string        // redis://... for one rate-limit budget across instances; empty: in-process
	RedisPrefix       string        // prefix of the Redis keys; instances that share a budget share it
	RedisTimeout      time.Duration // per rate-limit decision; past it the instance limits in-process
	Listen            bool          // wake the loads when the database changes
	Refresh           Schedule      // the flag, trend and stats load
	KeyRefresh        Schedule      // the key load
	FullReload        time.Duration // a full flag reload at least this often; 0: only at start
	RateLimit         int           // requests per key per rolling minute, unless the key has its own
	CacheMB           int           // rendered-response cache size
	MaxSnapshotAge    time.Duration // /readyz fails when the snapshot is older; 0: never
	ShutdownDelay     time.Duration // after SIGTERM, serving while /readyz says 503, before the API stops accepting
	ShutdownTimeout   time.Duration // then, how long requests in flight may finish
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	LogFormat         string // json, text, or auto (text on a terminal)
	LogLevel          string // debug, info, warn or error
	AccessLog         bool
	ServerTiming      bool     // answers carry the Server-Timing header
	SnapshotDaily     bool     // serve writes the daily trend snapshot at 00:00 UTC
	MaxConns          int      // open connections of the API at most; 0: derived from the open-file limit
	MaxConnsPerIP     int      // open connections of one client address at most; 0: no cap
	MaxStreamsPerKey  int      // live streams one key holds open at once on one instance
	AnonRateLimit     int      // requests a minute per client address without a valid key; 0: off
	TrustedProxies    []string // CIDRs or addresses whose X-Forwarded-For names the client

	// GOGCSet says the process environment sets GOGC, which the Go
	// runtime reads itself: serve then leaves the collector's target
	// alone. Information read by Resolve, not a setting.
	GOGCSet bool

	// Proxies is TrustedProxies parsed, filled by Validate (and so by
	// Resolve): what the API and its listener match addresses against.
	Proxies addrset.Set
}

// Default is the configuration with nothing set; config.yaml documents it.
func Default() Config {
	var c Config
	for _, s := range settings {
		s.reset(&c)
	}
	return c
}

// Scope says which settings a command takes as flags.
type Scope int

const (
	// Database is the settings of every command that opens the database.
	Database Scope = iota
	// Serve is every setting.
	Serve
)

// otherEnv are the FLAGPOLE_ variables that are no setting's and are
// still read: the configuration file's, the ledger builds' and the
// example client's; and the tests' and benchmarks' (FLAGPOLE_TEST_...,
// FLAGPOLE_BENCH_...).
var otherEnv = map[string]bool{"FLAGPOLE_CONFIG": true, "FLAGPOLE_LEDGER_OFF": true, "FLAGPOLE_KEY": true}

// UnknownEnv says, for each FLAGPOLE_ variable of environ (NAME=value
// pairs, as os.Environ gives them) that flagpole does not read, that it is
// ignored, with the setting's variable it may have meant: a misspelt
// FLAGPOLE_RATELIMIT would otherwise leave rate_limit at its default
// without a word.
func UnknownEnv(environ []string) []string {
	squash := func(s string) string { return strings.ReplaceAll(strings.ToUpper(s), "_", "") }
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		key := strings.ToLower(strings.TrimPrefix(name, "FLAGPOLE_"))
		if !strings.HasPrefix(name, "FLAGPOLE_") || otherEnv[name] || find(key) != nil && EnvName(key) == name ||
			strings.HasPrefix(name, "FLAGPOLE_TEST_") || strings.HasPrefix(name, "FLAGPOLE_BENCH_") {
			continue
		}
		msg := name + " is not a variable flagpole reads; it is ignored"
		for _, s := range settings {
			if squash(EnvName(s.key)) == squash(name) {
				msg += " (did you mean " + EnvName(s.key) + "?)"
				break
			}
		}
		out = append(out, msg)
	}
	slices.Sort(out)
	return out
}

// EnvName is the environment variable of a setting: FLAGPOLE_ and the key
// in upper case.
func EnvName(key string) string { return "FLAGPOLE_" + strings.ToUpper(key) }

// FlagName is the flag of a setting: the key with - for _.
func FlagName(key string) string { return strings.ReplaceAll(key, "_", "-") }

// Keys lists the config.yaml key of every setting, in the table's order.
func Keys() []string {
	out := make([]string, len(settings))
	for i, s := range settings {
		out[i] = s.key
	}
	return out
}

// Text is the value of the setting key in c, as config.yaml, the
// environment and the flag write it.
func (c *Config) Text(key string) string {
	s := find(key)
	if s == nil {
		panic("config: unknown setting " + key)
	}
	return s.get(c)
}

func find(key string) *setting {
	for i := range settings {
		if settings[i].key == key {
			return &settings[i]
		}
	}
	return nil
}

// flagValue is a setting's flag: it checks its text as the setting's kind
// when parsed and keeps it for Resolve. A bool setting's flag alone means
// true (--access-log), and takes a value only after = (--access-log=false).
type flagValue struct {
	s     *setting
	text  string
	given bool
}

func (v *flagValue) String() string {
	if v == nil || v.s == nil {
		return ""
	}
	return v.text
}

func (v *flagValue) Set(text string) error {
	var scratch Config
	if err := v.s.set(&scratch, text); err != nil {
		return err
	}
	if v.s.typ == "list" && v.given && text != "" {
		text = v.text + "," + text // a repeated list flag adds to the list
	}
	v.text, v.given = text, true
	return nil
}

// IsBoolFlag tells the flag package that a bool setting needs no value.
func (v *flagValue) IsBoolFlag() bool { return v != nil && v.s != nil && v.s.typ == "bool" }

// Bind registers --config and the flags of the settings of scope on fs,
// typed by the settings' kinds. Resolve reads them back.
func Bind(fs *flag.FlagSet, scope Scope) {
	fs.String("config", "", "configuration file (default: config.yaml when present)")
	for i := range settings {
		s := &settings[i]
		if scope == Serve || s.every {
			fs.Var(&flagValue{s: s, text: s.def}, FlagName(s.key), s.usage)
		}
	}
}

// Resolve builds the configuration of a parsed flag set: defaults, then
// the file, then the environment (getenv, normally os.Getenv; an empty
// variable counts as unset), then the flags given on the command line.
func Resolve(fs *flag.FlagSet, getenv func(string) string) (Config, error) {
	c, err := load(fs, getenv)
	if err != nil {
		return c, err
	}
	if err := c.readDBFile(); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// readDBFile reads the database URL from db_file, so that a password
// stays out of the command line (ps) and the configuration. The file's
// content never appears in an error.
func (c *Config) readDBFile() error {
	if c.DBFile == "" {
		return nil
	}
	b, err := os.ReadFile(c.DBFile)
	if err != nil {
		return fmt.Errorf("db_file: %w", err)
	}
	u := strings.TrimSpace(string(b))
	if u == "" || strings.ContainsAny(u, "\r\n") {
		return fmt.Errorf("db_file %s: want one line holding the database URL", c.DBFile)
	}
	c.DB = u
	return nil
}

// load is Resolve without the validation.
func load(fs *flag.FlagSet, getenv func(string) string) (Config, error) {
	c := Default()
	c.GOGCSet = getenv("GOGC") != ""
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
		if v, ok := f.Value.(*flagValue); ok && err == nil {
			if e := v.s.set(&c, v.text); e != nil {
				err = fmt.Errorf("--%s: %w", f.Name, e)
			}
		}
	})
	return c, err
}

// readFile applies a YAML file of settings. Each value is read as its
// text, as the environment's would be; a list may be a YAML sequence or a
// comma-separated string.
func (c *Config) readFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	var m map[string]yaml.Node
	if err := yaml.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	for k, node := range m {
		s := find(k)
		if s == nil {
			return fmt.Errorf("config %s: unknown setting %q", path, k)
		}
		text, err := nodeText(&node, s.typ == "list")
		if err == nil {
			err = s.set(c, text)
		}
		if err != nil {
			return fmt.Errorf("config %s: %s: %w", path, k, err)
		}
	}
	return nil
}

// nodeText is the text of a YAML value: a scalar as written, null as "",
// a sequence of scalars (for a list) joined with commas.
func nodeText(n *yaml.Node, list bool) (string, error) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return "", nil
	case n.Kind == yaml.ScalarNode:
		return n.Value, nil
	case n.Kind == yaml.SequenceNode && list:
		items := make([]string, 0, len(n.Content))
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode || strings.Contains(item.Value, ",") {
				return "", errors.New("want a list of plain values")
			}
			items = append(items, item.Value)
		}
		return strings.Join(items, ","), nil
	}
	return "", errors.New("want a single value")
}

// The schedules' defaults (CONTRACT.md, the CLI): with listen, a
// backstop under the database's wake-ups (a lost notification, a restore
// that notifies nothing; while the listener is down the loads poll as
// without it); without listen, the loads' only clock. An idle listening
// instance then runs at most 6 transactions a minute: a flag load and two
// key loads, and the loader's pings of its listener, which are none.
const (
	defaultRefresh          = "@every 10s"
	defaultKeyRefresh       = "@every 5s"
	defaultListenRefresh    = "@every 1m"
	defaultListenKeyRefresh = "@every 30s"
)

// MaxCacheMB bounds cache_mb: the caches' admission counters are sized
// by it (a counter per 100 bytes of searches), so that a mistyped size
// fails at start with a reason rather than in an allocation.
const MaxCacheMB = 65536

// Cautions are what serve warns of at start and on a reload: settings
// that validate but work against each other.
func (c *Config) Cautions(now time.Time) []string {
	var out []string
	if gap := c.Refresh.LongestGap(now); c.MaxSnapshotAge > 0 && c.MaxSnapshotAge <= gap {
		out = append(out, fmt.Sprintf("max_snapshot_age %s is not longer than the longest wait between flag loads (%s, refresh %q): "+
			"/readyz turns 503 between the loads of a database that does not change; set it above that, e.g. to twice it",
			c.MaxSnapshotAge, gap, c.Refresh.Spec))
	}
	return out
}

// defaultSchedules gives the schedules left to their defaults (see
// Schedule.byDefault) the defaults under c.Listen.
func (c *Config) defaultSchedules() {
	if c.Refresh.byDefault {
		c.Refresh = mustSchedule(map[bool]string{true: defaultListenRefresh, false: defaultRefresh}[c.Listen])
		c.Refresh.byDefault = true
	}
	if c.KeyRefresh.byDefault {
		c.KeyRefresh = mustSchedule(map[bool]string{true: defaultListenKeyRefresh, false: defaultKeyRefresh}[c.Listen])
		c.KeyRefresh.byDefault = true
	}
}

// underListen is c with its defaulted schedules those of listen: what
// a running serve, whose listen only a restart changes, would run of c.
func (c Config) underListen(listen bool) Config {
	keep := c.Listen
	c.Listen = listen
	c.defaultSchedules()
	c.Listen = keep
	return c
}

// Validate checks what the kinds do not: ranges and choices. It parses
// trusted_proxies into Proxies, and gives refresh and key_refresh their
// defaults when unset (they depend on listen).
func (c *Config) Validate() error {
	c.Refresh.byDefault = c.Refresh.byDefault || c.Refresh.Schedule == nil
	c.KeyRefresh.byDefault = c.KeyRefresh.byDefault || c.KeyRefresh.Schedule == nil
	c.defaultSchedules()
	if c.RateLimit < 1 {
		return errors.New("rate_limit must be at least 1")
	}
	if c.CacheMB < 0 || c.CacheMB > MaxCacheMB {
		return fmt.Errorf("cache_mb must be between 0 and %d (64 GiB)", MaxCacheMB)
	}
	if c.MaxStreamsPerKey < 1 {
		return errors.New("max_streams_per_key must be at least 1")
	}
	if c.MaxConns < 0 || c.MaxConnsPerIP < 0 || c.AnonRateLimit < 0 {
		return errors.New("max_conns, max_conns_per_ip and anon_rate_limit must be at least 0")
	}
	proxies, err := addrset.Parse(c.TrustedProxies)
	if err != nil {
		return fmt.Errorf("trusted_proxies: %w", err)
	}
	c.Proxies = proxies
	switch c.LogFormat {
	case "json", "text", "auto":
	default:
		return fmt.Errorf("log_format %q: want json, text or auto", c.LogFormat)
	}
	if _, err := ParseLevel(c.LogLevel); err != nil {
		return err
	}
	if c.DBTimeout < 100*time.Millisecond {
		return errors.New("db_timeout must be at least 100ms")
	}
	// Zero would be no bound at all (net/http's, go-redis's): a slow
	// client would hold a connection, a stop or a request for ever.
	// (idle_timeout may be 0: net/http then uses read_timeout.)
	for _, t := range []struct {
		name string
		d    time.Duration
	}{{"read_header_timeout", c.ReadHeaderTimeout}, {"read_timeout", c.ReadTimeout}, {"write_timeout", c.WriteTimeout},
		{"shutdown_timeout", c.ShutdownTimeout}, {"redis_timeout", c.RedisTimeout}} {
		if t.d <= 0 {
			return fmt.Errorf("%s must be more than 0", t.name)
		}
	}
	if c.DB == "" {
		return errors.New("db: a database URL is required")
	}
	return nil
}
