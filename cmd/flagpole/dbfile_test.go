package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// TestDBFile: the database URL can come from a file named by --db-file or
// FLAGPOLE_DB_FILE (a Docker secret), so a password stays out of ps; the
// file wins over --db, and serve never logs the password.
func TestDBFile(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "secret.db")
	secret := writeFile(t, "db-url", "sqlite:"+dbPath+"\n")
	mustRun(t, "migrate", "--db", "sqlite:"+filepath.Join(dir, "ignored.db"), "--db-file", secret)
	if _, err := os.Stat(dbPath); err != nil {
		t.Fatalf("--db-file: the database it names was not created: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ignored.db")); err == nil {
		t.Error("--db-file: --db was used too")
	}
	mustRun(t, "seed", "--db-file", secret, "--flags", "5", "--users", "2", "--days", "1")
	r := runCLI(t, mapEnv(map[string]string{"FLAGPOLE_DB_FILE": secret}), nil, "export", "-")
	if r.err != nil || len(lines(r.stdout)) != 5 {
		t.Fatalf("FLAGPOLE_DB_FILE: %v, %d lines, want 5", r.err, len(lines(r.stdout)))
	}
	if msg := mustFail(t, noEnv, nil, "migrate", "--db-file", filepath.Join(dir, "missing")); !strings.Contains(msg, "db_file") {
		t.Errorf("a missing --db-file: %q, want it named", msg)
	}

	// PostgreSQL: the password in the file never shows in serve's output.
	if os.Getenv("FLAGPOLE_TEST_POSTGRES") == "" {
		return
	}
	u, err := url.Parse(loadertest.URL(t, loader.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "hunter2-s3cret") // the test server trusts local connections
	pg := writeFile(t, "pg-url", u.String())
	s := startServe(t, noEnv, "--db-file", pg, "--addr", "127.0.0.1:0", "--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	waitReady(t, s, base)
	if err := s.stop(t); err != nil {
		t.Fatal(err)
	}
	if out := s.stderr.String() + s.stdout.String(); strings.Contains(out, "hunter2-s3cret") || !strings.Contains(out, u.Host) {
		t.Errorf("serve's output shows the password, or not the database it used:\n%s", out)
	}
}

// A database URL that does not parse, or a key=value string, is refused
// without its password: in the flag, the file or the environment.
func TestDBURLErrorsHideThePassword(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"postgres://postgres:s3cret%zz@127.0.0.1:1/x",
		"postgres://postgres:pa ss-s3cret@127.0.0.1:1/x",
		"postgresql://postgres:pa#s3cret@127.0.0.1:1/x",
		"host=127.0.0.1 port=1 password=s3cret-kv dbname=x",
		"host=127.0.0.1 password='s3cret quoted' dbname=x",
		// They parse, as host user and port 123, the rest a fragment or a path.
		"postgres://user:123#s3cret@127.0.0.1:1/x",
		"postgres://user:123/s3cret@127.0.0.1:1/x",
		"postgres://user:#s3cret@127.0.0.1:1/x",
		"host=127.0.0.1 port=1 sslpassword=s3cret-ssl dbname=x",
	} {
		for name, run := range map[string]func() string{
			"--db": func() string { return mustFail(t, noEnv, nil, "migrate", "--db", raw) },
			"--db-file": func() string {
				return mustFail(t, noEnv, nil, "migrate", "--db-file", writeFile(t, "db-url", raw+"\n"))
			},
			"FLAGPOLE_DB": func() string { return mustFail(t, mapEnv(map[string]string{"FLAGPOLE_DB": raw}), nil, "migrate") },
		} {
			if msg := run(); strings.Contains(msg, "s3cret") || !strings.Contains(msg, "database URL") {
				t.Errorf("%s %q: error %q shows the password, or does not name the database URL", name, raw, msg)
			}
		}
	}
}
