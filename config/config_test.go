package config

import (
	"bytes"
	"flag"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// noEnv is an empty environment.
func noEnv(string) string { return "" }

// emptyFile is a configuration file that sets nothing, so that a test
// never reads a config.yaml of its working directory.
func emptyFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadArgs binds the serve flags, parses args and loads the result.
func loadArgs(t *testing.T, getenv func(string) string, args ...string) (Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(new(bytes.Buffer))
	Bind(fs, Serve)
	if err := fs.Parse(append([]string{"--config", emptyFile(t)}, args...)); err != nil {
		return Config{}, err
	}
	return load(fs, getenv)
}

// helpEntry is one setting as -h shows it: `--name type`, its usage,
// then `default X, env Y`.
var helpEntry = regexp.MustCompile(`(?m)^  --([a-z-]+)[^\n]*\n {8}[^\n]*\n {8}default (.*), env (FLAGPOLE_[A-Z_]+)$`)

func TestHelpShowsEachRealDefault(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	Bind(fs, Serve)
	var help bytes.Buffer
	PrintFlags(&help, fs)
	shown := map[string][2]string{}
	for _, m := range helpEntry.FindAllStringSubmatch(help.String(), -1) {
		shown[m[1]] = [2]string{m[2], m[3]}
	}
	// What a run with nothing set really uses.
	real, err := loadArgs(t, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range Keys() {
		got, ok := shown[FlagName(key)]
		if !ok {
			t.Errorf("-h does not show --%s with a default and a variable:\n%s", FlagName(key), help.String())
			continue
		}
		if got[1] != EnvName(key) {
			t.Errorf("-h: --%s names the variable %s, want %s", FlagName(key), got[1], EnvName(key))
		}
		text := got[0]
		if unq, err := strconv.Unquote(text); err == nil {
			text = unq
		}
		// The default shown, given back as the flag, is the default used.
		c, err := loadArgs(t, noEnv, "--"+FlagName(key)+"="+text)
		if err != nil {
			t.Errorf("-h shows --%s default %s, which the flag refuses: %v", FlagName(key), got[0], err)
			continue
		}
		if !reflect.DeepEqual(texts(&c), texts(&real)) {
			t.Errorf("-h shows --%s default %s, but the default is %q", FlagName(key), got[0], real.Text(key))
		}
	}
}

// texts is every setting of c as text.
func texts(c *Config) map[string]string {
	out := map[string]string{}
	for _, k := range Keys() {
		out[k] = c.Text(k)
	}
	return out
}

func TestConfigYAMLIsTheDefault(t *testing.T) {
	b, err := os.ReadFile("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var inFile []string
	for k := range m {
		inFile = append(inFile, k)
	}
	want := Keys()
	if !sameSet(inFile, want) {
		t.Errorf("config.yaml has the keys %v, want one for each setting: %v", inFile, want)
	}
	var c Config // every field empty: only the file fills it
	if err := c.readFile("../config.yaml"); err != nil {
		t.Fatal(err)
	}
	def := Default()
	for _, k := range want {
		if got, want := c.Text(k), def.Text(k); got != want {
			t.Errorf("config.yaml: %s is %q, the default is %q", k, got, want)
		}
	}
}

func sameSet(a, b []string) bool {
	set := map[string]bool{}
	for _, x := range a {
		set[x] = true
	}
	for _, x := range b {
		if !set[x] {
			return false
		}
		delete(set, x)
	}
	return len(set) == 0
}

// otherValue is a valid value of s that is not its default.
func otherValue(s *setting) string {
	switch s.typ {
	case "int":
		n, _ := strconv.Atoi(s.def)
		return strconv.Itoa(n + 7)
	case "bool":
		return strconv.FormatBool(s.def != "true")
	case "duration":
		d, _ := time.ParseDuration(s.def)
		return durationText(d + 3*time.Second)
	case "schedule":
		return "@every 17s"
	case "list":
		return "10.0.0.0/8,192.168.0.0/16"
	}
	return "other:" + s.def
}

func TestEverySettingHasAFlagAndAVariable(t *testing.T) {
	for i := range settings {
		s := &settings[i]
		other := otherValue(s)
		if other == s.def {
			t.Fatalf("%s: the test's other value is the default", s.key)
		}
		env := func(k string) string {
			if k == EnvName(s.key) {
				return other
			}
			return ""
		}
		c, err := loadArgs(t, env)
		if err != nil {
			t.Errorf("%s=%s: %v", EnvName(s.key), other, err)
		} else if got := c.Text(s.key); got != other {
			t.Errorf("%s=%s: %s is %q", EnvName(s.key), other, s.key, got)
		}
		c, err = loadArgs(t, noEnv, "--"+FlagName(s.key)+"="+other)
		if err != nil {
			t.Errorf("--%s=%s: %v", FlagName(s.key), other, err)
		} else if got := c.Text(s.key); got != other {
			t.Errorf("--%s=%s: %s is %q", FlagName(s.key), other, s.key, got)
		}
		// The flag wins over the variable.
		c, err = loadArgs(t, env, "--"+FlagName(s.key)+"="+s.def)
		if err != nil || c.Text(s.key) != s.def {
			t.Errorf("--%s=%s with %s=%s: got %q, %v; want the flag's value", FlagName(s.key), s.def, EnvName(s.key), other, c.Text(s.key), err)
		}
	}
}

func TestTypedFlags(t *testing.T) {
	// A bool flag alone means true and leaves the next flag alone.
	c, err := loadArgs(t, noEnv, "--access-log", "--addr", ":9999", "--snapshot-daily=false")
	if err != nil {
		t.Fatal(err)
	}
	if !c.AccessLog || c.Addr != ":9999" || c.SnapshotDaily {
		t.Errorf("--access-log --addr :9999 --snapshot-daily=false: access_log %v, addr %q, snapshot_daily %v",
			c.AccessLog, c.Addr, c.SnapshotDaily)
	}
	c, err = loadArgs(t, noEnv, "--access-log=false", "--cache-mb", "8", "--write-timeout", "1m", "--refresh", "@every 3s")
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessLog || c.CacheMB != 8 || c.WriteTimeout != time.Minute || c.Refresh.Spec != "@every 3s" {
		t.Errorf("got access_log %v, cache_mb %d, write_timeout %s, refresh %s", c.AccessLog, c.CacheMB, c.WriteTimeout, c.Refresh)
	}
	// The schedule is parsed once, here, and runs as it is.
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := c.Refresh.Next(now); !got.Equal(now.Add(3 * time.Second)) {
		t.Errorf("refresh @every 3s: next after %s is %s", now, got)
	}
	for _, args := range [][]string{
		{"--rate-limit", "many"}, {"--access-log=maybe"}, {"--full-reload", "10"}, {"--read-timeout", "-1s"},
		{"--refresh", "sometimes"}, {"--key-refresh", "@every never"},
	} {
		if _, err := loadArgs(t, noEnv, args...); err == nil {
			t.Errorf("%v: got no error", args)
		}
	}
}

func TestFileKinds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte("access_log: false\nfull_reload: 1h\ncache_mb: 3\nrefresh: '*/5 * * * * *'\nadmin_addr:\n"), 0o644)
	c := Default()
	if err := c.readFile(path); err != nil {
		t.Fatal(err)
	}
	if c.AccessLog || c.FullReload != time.Hour || c.CacheMB != 3 || c.Refresh.Spec != "*/5 * * * * *" || c.AdminAddr != "" {
		t.Errorf("got %+v", c)
	}
	for _, bad := range []string{"cache_mb: 1.5\n", "access_log: yes\n", "full_reload: 600\n", "nope: 1\n", "addr: [a, b]\n"} {
		os.WriteFile(path, []byte(bad), 0o644)
		c := Default()
		if err := c.readFile(path); err == nil {
			t.Errorf("config %q: got no error", bad)
		}
	}
}

// testList is the field of a list setting made for the test: none of
// the table is a list yet.
var testList []string

func TestListKind(t *testing.T) {
	s := row("test_list", []string(nil), "a list", func(*Config) *[]string { return &testList })
	var c Config
	for text, want := range map[string][]string{"": nil, "a": {"a"}, " a , b,,c ": {"a", "b", "c"}} {
		if err := s.set(&c, text); err != nil || !reflect.DeepEqual(testList, want) {
			t.Errorf("set %q: got %q, %v; want %q", text, testList, err, want)
		}
	}
	// A repeated flag adds to the list.
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(&flagValue{s: &s}, "test-list", "")
	if err := fs.Parse([]string{"--test-list", "10.0.0.0/8", "--test-list=192.168.0.0/16,::1/128"}); err != nil {
		t.Fatal(err)
	}
	v := fs.Lookup("test-list").Value.String()
	if err := s.set(&c, v); err != nil || !reflect.DeepEqual(testList, []string{"10.0.0.0/8", "192.168.0.0/16", "::1/128"}) {
		t.Errorf("repeated flag: got %q, %v", testList, err)
	}
	// In YAML: a sequence, or a comma-separated string.
	for _, text := range []string{"[10.0.0.0/8, 192.168.0.0/16]", "10.0.0.0/8,192.168.0.0/16", "\n  - 10.0.0.0/8\n  - 192.168.0.0/16"} {
		var m map[string]yaml.Node
		if err := yaml.Unmarshal([]byte("k: "+text), &m); err != nil {
			t.Fatal(err)
		}
		n := m["k"]
		got, err := nodeText(&n, true)
		if err != nil || got != "10.0.0.0/8,192.168.0.0/16" {
			t.Errorf("yaml %q: got %q, %v", text, got, err)
		}
	}
	if got := format(s.def); got != "" {
		t.Errorf("an empty list's default shows as %q", got)
	}
}

// The schedules have one home: the loader runs what config parsed and
// does not import config to parse them again.
func TestLoaderDoesNotImportConfig(t *testing.T) {
	files, _ := filepath.Glob("../loader/*.go")
	if len(files) == 0 {
		t.Fatal("no loader sources found")
	}
	for _, f := range files {
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			if strings.Trim(imp.Path.Value, `"`) == "github.com/flagpole/flagpole/config" {
				t.Errorf("%s imports config", f)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, args := range [][]string{{"--rate-limit", "0"}, {"--cache-mb", "-1"}, {"--cache-mb", "65537"}, {"--log-format", "xml"}, {"--db", ""},
		{"--read-timeout", "0s"}, {"--read-header-timeout", "0"}, {"--write-timeout", "0s"},
		{"--shutdown-timeout", "0s"}, {"--redis-timeout", "0s"}} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		Bind(fs, Serve)
		if err := fs.Parse(append([]string{"--config", emptyFile(t)}, args...)); err != nil {
			t.Fatal(err)
		}
		if _, err := Resolve(fs, noEnv); err == nil {
			t.Errorf("%v: got no error", args)
		}
	}
	c := Default()
	c.CacheMB = MaxCacheMB
	if err := c.Validate(); err != nil {
		t.Errorf("cache_mb %d: %v", MaxCacheMB, err)
	}
	for _, f := range []string{"json", "text", "auto"} {
		c := Default()
		c.LogFormat = f
		if err := c.Validate(); err != nil {
			t.Errorf("log_format %s: %v", f, err)
		}
	}
}

// TestGOGCSet: the environment's GOGC is read by config, as every
// variable is, and reported without being a setting.
func TestGOGCSet(t *testing.T) {
	for env, want := range map[string]bool{"": false, "200": true, "off": true} {
		c, err := loadArgs(t, func(k string) string { return map[string]string{"GOGC": env}[k] })
		if err != nil {
			t.Fatal(err)
		}
		if c.GOGCSet != want {
			t.Errorf("GOGC=%q: GOGCSet %v, want %v", env, c.GOGCSet, want)
		}
	}
}

// TestSchedules: the schedules default to the contract's 10 s and 5 s,
// with listen on or off, and one the operator set is kept.
func TestSchedules(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		args        []string
		flags, keys time.Duration
	}{
		{nil, time.Minute, 30 * time.Second},
		{[]string{"--listen=false"}, 10 * time.Second, 5 * time.Second},
		{[]string{"--listen=false", "--refresh", "@every 3s"}, 3 * time.Second, 5 * time.Second},
		{[]string{"--listen=false", "--key-refresh", "@every 2s"}, 10 * time.Second, 2 * time.Second},
		{[]string{"--refresh", "@every 3s"}, 3 * time.Second, 30 * time.Second},
	} {
		c, err := loadArgs(t, noEnv, tc.args...)
		if err == nil {
			err = c.Validate()
		}
		if err != nil {
			t.Fatal(err)
		}
		flags, keys := c.Refresh, c.KeyRefresh
		if got := flags.Next(now).Sub(now); got != tc.flags {
			t.Errorf("%v: the flag load every %s, want %s", tc.args, got, tc.flags)
		}
		if got := keys.Next(now).Sub(now); got != tc.keys {
			t.Errorf("%v: the key load every %s, want %s", tc.args, got, tc.keys)
		}
	}
}

// TestCautions: max_snapshot_age no longer than the longest wait between
// flag loads is cautioned against (readiness would fail between loads of
// an idle database), a longer one or 0 is not.
func TestCautions(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 30, 0, time.UTC)
	for _, tc := range []struct {
		args []string
		warn bool
	}{
		{nil, false},
		{[]string{"--max-snapshot-age", "3s"}, true}, // listen: a load a minute
		{[]string{"--max-snapshot-age", "1m"}, true},
		{[]string{"--max-snapshot-age", "61s"}, false},
		{[]string{"--listen=false", "--max-snapshot-age", "15s"}, false},
		{[]string{"--listen=false", "--max-snapshot-age", "10s"}, true},
		{[]string{"--refresh", "0 0,10 * * * *", "--max-snapshot-age", "20m"}, true}, // gaps of 10 and 50 minutes
		{[]string{"--refresh", "0 0,10 * * * *", "--max-snapshot-age", "51m"}, false},
		// Gaps the next few runs do not show: overnight, and past the 10th.
		{[]string{"--refresh", "0 0 9-17 * * *", "--max-snapshot-age", "2h"}, true},
		{[]string{"--refresh", "0 0 9-17 * * *", "--max-snapshot-age", "17h"}, false},
		{[]string{"--refresh", "0 0 0 1-10 * *", "--max-snapshot-age", "48h"}, true},
	} {
		c, err := loadArgs(t, noEnv, tc.args...)
		if err == nil {
			err = c.Validate()
		}
		if err != nil {
			t.Fatal(err)
		}
		cautions := c.Cautions(now)
		if got := len(cautions) == 1 && strings.Contains(cautions[0], "max_snapshot_age"); got != tc.warn || len(cautions) > 1 {
			t.Errorf("%v: cautions %q, want one on max_snapshot_age: %v", tc.args, cautions, tc.warn)
		}
	}
}

// TestScheduleRunsAsWritten: a schedule robfig/cron would run otherwise
// than it reads is refused, with what it would do; one that runs as
// written is kept.
func TestScheduleRunsAsWritten(t *testing.T) {
	for _, spec := range []string{"@every 0s", "@every 500ms", "@every 1500ms", "@every -5s", "CRON_TZ=UTC @every 0s", "0 0 0 30 2 *", "0 0 31 4 *"} {
		if _, err := ParseSchedule(spec); err == nil {
			t.Errorf("%q: got no error", spec)
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for spec, next := range map[string]time.Duration{
		"@every 1s": time.Second, "@every 1m30s": 90 * time.Second, "CRON_TZ=UTC @every 2s": 2 * time.Second,
		"0 0 0 29 2 *": time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC).Sub(now), "@hourly": time.Hour,
	} {
		s, err := ParseSchedule(spec)
		if err != nil {
			t.Errorf("%q: %v", spec, err)
			continue
		}
		if got := s.Next(now); !got.Equal(now.Add(next)) {
			t.Errorf("%q: next after %s is %s, want %s", spec, now, got, now.Add(next))
		}
	}
	_, err := ParseSchedule("@every 0s")
	if err == nil || !strings.Contains(err.Error(), "every 1s") {
		t.Errorf("@every 0s: %v, want what it would run as", err)
	}
}

// TestUnknownEnv: a FLAGPOLE_ variable flagpole does not read is named,
// with the setting's variable it resembles; the settings' own and the
// other variables flagpole reads are not.
func TestUnknownEnv(t *testing.T) {
	got := UnknownEnv([]string{"FLAGPOLE_RATELIMIT=5", "FLAGPOLE_RATE_LIMIT=5", "FLAGPOLE_rate_limit=5", "FLAGPOLE_CONFIG=x",
		"FLAGPOLE_TEST_POSTGRES=x", "FLAGPOLE_NOPE", "PATH=/bin", "HOME=/root", "FLAGPOLE_DB_FILE=f", "FLAGPOLE_CACHEMB=1"})
	want := []string{
		"FLAGPOLE_CACHEMB is not a variable flagpole reads; it is ignored (did you mean FLAGPOLE_CACHE_MB?)",
		"FLAGPOLE_NOPE is not a variable flagpole reads; it is ignored",
		"FLAGPOLE_RATELIMIT is not a variable flagpole reads; it is ignored (did you mean FLAGPOLE_RATE_LIMIT?)",
		"FLAGPOLE_rate_limit is not a variable flagpole reads; it is ignored (did you mean FLAGPOLE_RATE_LIMIT?)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("UnknownEnv:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var every []string
	for _, k := range Keys() {
		every = append(every, EnvName(k)+"=x")
	}
	if got := UnknownEnv(every); len(got) != 0 {
		t.Errorf("the settings' own variables named: %v", got)
	}
}

// TestLimitsAtTheirEdges: each bound Validate checks takes its last good
// value and refuses the next one.
func TestLimitsAtTheirEdges(t *testing.T) {
	for _, c := range []struct {
		key, good, bad string
	}{
		{"rate_limit", "1", "0"},
		{"cache_mb", "0", "-1"},
		{"cache_mb", "65536", "65537"},
		{"max_streams_per_key", "1", "0"},
		{"max_conns", "0", "-1"},
		{"max_conns_per_ip", "0", "-1"},
		{"anon_rate_limit", "0", "-1"},
		{"db_timeout", "100ms", "99ms"},
		{"read_header_timeout", "1ns", "0s"},
		{"read_timeout", "1ns", "0s"},
		{"write_timeout", "1ns", "0s"},
		{"shutdown_timeout", "1ns", "0s"},
		{"redis_timeout", "1ns", "0s"},
	} {
		for _, v := range []struct {
			text string
			ok   bool
		}{{c.good, true}, {c.bad, false}} {
			cfg := Default()
			if err := find(c.key).set(&cfg, v.text); err != nil {
				t.Fatalf("%s %s: %v", c.key, v.text, err)
			}
			if err := cfg.Validate(); (err == nil) != v.ok {
				t.Errorf("%s %s: Validate %v, want ok %v", c.key, v.text, err, v.ok)
			}
		}
	}
}
