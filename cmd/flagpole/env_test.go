package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// keyCount is the number of keys `keys list` shows for db.
func keyCount(t *testing.T, db string) int {
	t.Helper()
	rows, _ := listKeys(t, db)
	return len(rows)
}

func TestEnvironmentDB(t *testing.T) {
	t.Parallel()
	fromEnv := loadertest.URL(t, loader.SQLite)
	fromFlag := loadertest.URL(t, loader.SQLite)
	getenv := mapEnv(map[string]string{"FLAGPOLE_DB": fromEnv})

	// FLAGPOLE_DB alone names the database.
	if r := runCLI(t, getenv, nil, "migrate"); r.err != nil {
		t.Fatalf("migrate with FLAGPOLE_DB: %v\nstderr:\n%s", r.err, r.stderr)
	}
	r := runCLI(t, getenv, nil, "keys", "create", "--name", "env")
	if r.err != nil {
		t.Fatalf("keys create with FLAGPOLE_DB: %v\nstderr:\n%s", r.err, r.stderr)
	}
	if got := strings.TrimSpace(r.stdout); !keyPattern.MatchString(got) {
		t.Errorf("keys create with FLAGPOLE_DB: stdout = %q, want a key", r.stdout)
	}
	if got := keyCount(t, fromEnv); got != 1 {
		t.Errorf("the FLAGPOLE_DB database has %d keys, want 1", got)
	}
	// keys list reads the same database through FLAGPOLE_DB.
	if r := runCLI(t, getenv, nil, "keys", "list"); r.err != nil || len(lines(r.stdout)) != 2 {
		t.Errorf("keys list with FLAGPOLE_DB: err %v, stdout:\n%s\nwant a header and one key", r.err, r.stdout)
	}

	// --db wins over FLAGPOLE_DB.
	r = runCLI(t, getenv, nil, "keys", "create", "--name", "flag", "--db", fromFlag)
	if r.err != nil {
		t.Fatalf("keys create --db with FLAGPOLE_DB set: %v", r.err)
	}
	if got := keyCount(t, fromFlag); got != 1 {
		t.Errorf("the --db database has %d keys, want 1", got)
	}
	if got := keyCount(t, fromEnv); got != 1 {
		t.Errorf("the FLAGPOLE_DB database has %d keys after a create with --db, want still 1", got)
	}
}

func TestEnvironmentPrecedence(t *testing.T) {
	t.Parallel()
	fileDB := loadertest.URL(t, loader.SQLite)
	envDB := loadertest.URL(t, loader.SQLite)
	flagDB := loadertest.URL(t, loader.SQLite)
	config := writeFile(t, "flagpole.yaml", "db: "+fileDB+"\n")

	for _, tc := range []struct {
		name   string
		env    map[string]string
		args   []string
		wantDB string
	}{
		{"FLAGPOLE_CONFIG file", map[string]string{"FLAGPOLE_CONFIG": config}, nil, fileDB},
		{"--config file", nil, []string{"--config", config}, fileDB},
		{"FLAGPOLE_DB over the file", map[string]string{"FLAGPOLE_CONFIG": config, "FLAGPOLE_DB": envDB}, nil, envDB},
		{"--db over FLAGPOLE_DB and the file", map[string]string{"FLAGPOLE_CONFIG": config, "FLAGPOLE_DB": envDB},
			[]string{"--db", flagDB}, flagDB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string]int{fileDB: keyCount(t, fileDB), envDB: keyCount(t, envDB), flagDB: keyCount(t, flagDB)}
			args := append([]string{"keys", "create", "--name", "p"}, tc.args...)
			if r := runCLI(t, mapEnv(tc.env), nil, args...); r.err != nil {
				t.Fatalf("flagpole %s: %v\nstderr:\n%s", strings.Join(args, " "), r.err, r.stderr)
			}
			for db, n := range before {
				want := n
				if db == tc.wantDB {
					want++
				}
				if got := keyCount(t, db); got != want {
					t.Errorf("%s: got %d keys, want %d", db, got, want)
				}
			}
		})
	}
}

func TestEnvironmentErrors(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	for _, tc := range []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string
	}{
		{"FLAGPOLE_DB not a database URL", map[string]string{"FLAGPOLE_DB": "mysql://x"}, []string{"migrate"}, "mysql"},
		{"FLAGPOLE_RATE_LIMIT not a number", map[string]string{"FLAGPOLE_RATE_LIMIT": "lots"},
			[]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, "FLAGPOLE_RATE_LIMIT"},
		{"FLAGPOLE_REFRESH not a schedule", map[string]string{"FLAGPOLE_REFRESH": "often"},
			[]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, "often"},
		{"FLAGPOLE_CONFIG missing", map[string]string{"FLAGPOLE_CONFIG": "/nonexistent/flagpole.yaml"},
			[]string{"migrate", "--db", db}, "nonexistent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := mustFail(t, mapEnv(tc.env), nil, tc.args...)
			if !strings.Contains(msg, tc.wantErr) {
				t.Errorf("error %q, want it to contain %q", msg, tc.wantErr)
			}
		})
	}
	// A bad FLAGPOLE_DB does not matter when --db is given.
	if r := runCLI(t, mapEnv(map[string]string{"FLAGPOLE_DB": "mysql://x"}), nil, "migrate", "--db", db); r.err != nil {
		t.Errorf("migrate --db with a bad FLAGPOLE_DB: %v", r.err)
	}
}

func TestEnvironmentAddr(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"FLAGPOLE_ADDR", map[string]string{"FLAGPOLE_ADDR": "127.0.0.1:0"}, nil},
		{"--addr over a bad FLAGPOLE_ADDR", map[string]string{"FLAGPOLE_ADDR": "256.1.2.3:99999"}, []string{"--addr", "127.0.0.1:0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServe(t, mapEnv(tc.env), append([]string{"--db", db, "--access-log=false"}, tc.args...)...)
			m := s.waitFor(t, "its listen address", 60*time.Second, func() []string {
				return listening.FindStringSubmatch(s.stderr.String())
			})
			if !strings.HasPrefix(m[1], "127.0.0.1:") || strings.HasSuffix(m[1], ":8080") || strings.HasSuffix(m[1], ":0") {
				t.Errorf("serve listens on %s, want 127.0.0.1 and a port the system chose", m[1])
			}
			waitReady(t, s, "http://"+m[1])
			if err := s.stop(t); err != nil {
				t.Errorf("serve: got %v, want nil", err)
			}
		})
	}
}

// TestUnknownEnvWarned: a FLAGPOLE_ variable no setting has is named on
// standard error, by any command, with the one it resembles.
func TestUnknownEnvWarned(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "version")
	var environ []string // without any FLAGPOLE_ variable of the test's own environment
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FLAGPOLE_") {
			environ = append(environ, kv)
		}
	}
	cmd.Env = append(environ, "FLAGPOLE_TEST_EXEC_MAIN=1", "FLAGPOLE_RATELIMIT=5", "FLAGPOLE_RATE_LIMIT=5")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("flagpole version: %v\n%s", err, stderr.String())
	}
	want := "flagpole: warning: FLAGPOLE_RATELIMIT is not a variable flagpole reads; it is ignored (did you mean FLAGPOLE_RATE_LIMIT?)\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
