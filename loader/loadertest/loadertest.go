// Package loadertest gives tests throw-away databases of every source: a
// temporary SQLite file always, and a fresh PostgreSQL database when
// FLAGPOLE_TEST_POSTGRES names a server (under CI=true its absence fails
// the test instead of skipping it). It also holds what tests of several
// packages share: a TCP proxy that cuts or stalls connections (Proxy), a
// buffer safe across goroutines for a server's logs (Buffer) and a raw
// HTTP exchange (Exchange).
package loadertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/flagpole/flagpole/loader"
)

// Sources lists the database kinds a test should run against.
func Sources(tb testing.TB) []loader.Dialect {
	tb.Helper()
	out := []loader.Dialect{loader.SQLite}
	if os.Getenv("FLAGPOLE_TEST_POSTGRES") != "" {
		out = append(out, loader.Postgres)
	} else if os.Getenv("CI") == "true" {
		tb.Fatal("CI=true but FLAGPOLE_TEST_POSTGRES is not set: the PostgreSQL tests cannot run")
	}
	return out
}

// RequirePostgres returns FLAGPOLE_TEST_POSTGRES, skipping the test
// without it (failing under CI=true).
func RequirePostgres(tb testing.TB) string {
	return requireService(tb, "FLAGPOLE_TEST_POSTGRES", "PostgreSQL")
}

// RedisURL returns FLAGPOLE_TEST_REDIS, skipping the test without it
// (failing under CI=true).
func RedisURL(tb testing.TB) string { return requireService(tb, "FLAGPOLE_TEST_REDIS", "Redis") }

// requireService reads the variable that names a test service; without it
// the test skips on a developer's machine and fails in CI.
func requireService(tb testing.TB, name, what string) string {
	tb.Helper()
	u := os.Getenv(name)
	if u == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true but %s is not set: the %s tests cannot run", name, what)
		}
		tb.Skipf("%s is not set; skipping the %s test", name, what)
	}
	return u
}

// URL makes an empty database of kind d and returns its URL; it is
// dropped when the test ends.
func URL(tb testing.TB, d loader.Dialect) string {
	tb.Helper()
	if d == loader.SQLite {
		// An empty file is an empty SQLite database, as a new PostgreSQL
		// database is: commands that refuse a missing file accept it.
		path := filepath.Join(tb.TempDir(), "flagpole.db")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			tb.Fatal(err)
		}
		return "sqlite:" + path
	}
	base := RequirePostgres(tb)
	var b [6]byte
	rand.Read(b[:])
	name := "flagpole_test_" + hex.EncodeToString(b[:])
	admin, err := sqlx.Open("postgres", base)
	if err != nil {
		tb.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		tb.Fatalf("create test database: %v", err)
	}
	tb.Cleanup(func() {
		a, err := sqlx.Open("postgres", base)
		if err != nil {
			return
		}
		defer a.Close()
		a.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	q := u.Query()
	if q.Get("sslmode") == "" && !strings.Contains(base, "sslmode") {
		q.Set("sslmode", "disable")
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Open makes an empty, migrated database of kind d.
func Open(tb testing.TB, d loader.Dialect) (*loader.DB, string) {
	tb.Helper()
	u := URL(tb, d)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := loader.OpenMigrated(ctx, u)
	if err != nil {
		tb.Fatalf("open %s: %v", d, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db, u
}

// OtherLoopbacks skips the test where it cannot dial from a loopback
// address past 127.0.0.1 (127.0.0.2, 127.0.0.10, ...): Linux binds all of
// 127.0.0.0/8 to lo, macOS and Windows 127.0.0.1 alone. The tests that
// tell clients apart by address need several.
func OtherLoopbacks(tb testing.TB) {
	tb.Helper()
	if runtime.GOOS != "linux" {
		tb.Skip("dials from 127.0.0.2 and up, which only Linux binds to the loopback interface")
	}
}
