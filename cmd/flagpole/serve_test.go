package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// server is a `flagpole serve` running in a goroutine.
type server struct {
	stdout, stderr *syncBuffer
	cancel         context.CancelFunc
	done           chan error
	stopped        bool
}

// startServe runs serve with args; the test's cleanup stops it.
func startServe(t *testing.T, getenv env, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	go func() {
		s.done <- run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), s.stdout, s.stderr, getenv)
	}()
	t.Cleanup(func() {
		if !s.stopped {
			cancel()
			select {
			case <-s.done:
			case <-time.After(30 * time.Second):
				t.Error("serve did not stop within 30 s of the test's end")
			}
		}
	})
	return s
}

// stop cancels serve's context and returns what run returned, failing
// the test unless it returns within 15 s.
func (s *server) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		s.stopped = true
		return err
	case <-time.After(15 * time.Second):
		t.Fatalf("serve did not return within 15 s of its context's end\nstderr:\n%s", s.stderr)
		return nil
	}
}

// waitFor polls find on serve's output until it matches, serve ends, or
// the timeout passes.
func (s *server) waitFor(t *testing.T, what string, timeout time.Duration, find func() []string) []string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if m := find(); m != nil {
			return m
		}
		select {
		case err := <-s.done:
			s.stopped = true
			t.Fatalf("serve returned %v before printing %s\nstdout:\n%s\nstderr:\n%s", err, what, s.stdout, s.stderr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve printed no %s within %s\nstdout:\n%s\nstderr:\n%s", what, timeout, s.stdout, s.stderr)
		}
	}
}

var (
	curlLine  = regexp.MustCompile(`curl -H 'Authorization: Bearer (grf_[A-Za-z0-9]{32})' '(http://[^']+)'`)
	listening = regexp.MustCompile(`"msg":"listening".*?"addr":"([^"]+)"`)
	demoBox   = regexp.MustCompile(`(?s)\n=+\n[^\n]*ready[^\n]*\n\n  (grf_\S+)\n.*?\n  (curl [^\n]+)\n.*?\n=+\n`)
)

// get does one GET with an optional key and returns the status and body.
func get(t *testing.T, rawURL, key string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	return resp.StatusCode, body
}

// waitReady polls base/readyz until it answers 200.
func waitReady(t *testing.T, s *server, base string) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	last := "no answer"
	for time.Now().Before(deadline) {
		resp, err := client.Get(base + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status + " " + string(body)
		} else {
			last = err.Error()
		}
		select {
		case err := <-s.done:
			s.stopped = true
			t.Fatalf("serve returned %v before it was ready\nstderr:\n%s", err, s.stderr)
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("%s/readyz was not 200 within 60 s; last: %s\nstderr:\n%s", base, last, s.stderr)
}

func TestServeDemo(t *testing.T) {
	t.Parallel()
	sources := loadertest.Sources(t)
	for _, d := range sources {
		t.Run(string(d), func(t *testing.T) {
			// The demo seeds one flag per demo statement, 500 users and 90 days: under the
			// race detector that takes SQLite (a pure-Go engine, all of it
			// instrumented) some 50 s against PostgreSQL's 10 s, so it is
			// left to PostgreSQL when there is one.
			if d == loader.SQLite && raceEnabled && len(sources) > 1 && os.Getenv("FLAGPOLE_TEST_SLOW") == "" {
				t.Skip("the SQLite demo is slow under -race; PostgreSQL runs it (set FLAGPOLE_TEST_SLOW=1 to run it anyway)")
			}
			testServeDemo(t, loadertest.URL(t, d))
		})
	}
}

func testServeDemo(t *testing.T, db string) {
	args := []string{"--demo", "--db", db, "--addr", "127.0.0.1:0", "--refresh", "@every 1s", "--access-log=false"}

	s := startServe(t, noEnv, args...)
	m := s.waitFor(t, "a curl line", 90*time.Second, func() []string { return curlLine.FindStringSubmatch(s.stdout.String()) })
	key, flagsURL := m[1], m[2]
	u, err := url.Parse(flagsURL)
	if err != nil {
		t.Fatalf("the curl line's URL %q: %v", flagsURL, err)
	}
	if u.Path != "/api/public/flags" || u.Query().Get("limit") != "2" || !strings.HasPrefix(u.Host, "127.0.0.1:") || u.Port() == "0" {
		t.Errorf("the curl line's URL is %q, want http://127.0.0.1:PORT/api/public/flags?limit=2 with the real port", flagsURL)
	}
	// The key is printed alone on its own line too, and nowhere on stderr.
	if !regexp.MustCompile(`(?m)^\s*` + key + `\s*$`).MatchString(s.stdout.String()) {
		t.Errorf("stdout does not show the key on a line of its own:\n%s", s.stdout)
	}
	if strings.Contains(s.stderr.String(), key) {
		t.Error("the key shows on stderr")
	}
	base := "http://" + u.Host
	waitReady(t, s, base)
	// Once serving, the key and the curl line again, framed.
	framed := s.waitFor(t, "the key in a box", 30*time.Second, func() []string {
		return demoBox.FindStringSubmatch(s.stdout.String())
	})
	if framed[1] != key || !strings.Contains(framed[2], key) || !strings.Contains(framed[2], flagsURL) {
		t.Errorf("the box shows key %q and %q, want the key %s and the curl line", framed[1], framed[2], key)
	}

	if code, _ := get(t, base+"/healthz", ""); code != http.StatusOK {
		t.Errorf("/healthz: got %d, want 200", code)
	}
	code, body := get(t, flagsURL, key)
	if code != http.StatusOK {
		t.Fatalf("GET %s with the demo key: got %d, want 200: %s", flagsURL, code, body)
	}
	var page struct {
		Count int               `json:"count"`
		Total int               `json:"total"`
		Data  []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatalf("GET %s: not JSON: %v: %s", flagsURL, err, body)
	}
	if page.Count != 2 || len(page.Data) != 2 {
		t.Errorf("GET %s: count %d with %d items, want 2 and 2", flagsURL, page.Count, len(page.Data))
	}
	if n := loader.DemoSize(); page.Total != n {
		t.Errorf("GET %s: total %d, want the %d demo flags, all approved", flagsURL, page.Total, n)
	}
	if code, _ := get(t, flagsURL, ""); code != http.StatusUnauthorized {
		t.Errorf("GET %s without a key: got %d, want 401", flagsURL, code)
	}

	if err := s.stop(t); err != nil {
		t.Fatalf("serve after its context ended: got %v, want nil (graceful shutdown)", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("serve still answers after run returned")
	}

	// Again on the same database, now full: no seeding, no new key, and
	// the first key still works.
	t.Run("on a database with data", func(t *testing.T) {
		again := startServe(t, noEnv, args...)
		m := again.waitFor(t, "its listen address", 60*time.Second, func() []string {
			return listening.FindStringSubmatch(again.stderr.String())
		})
		base := "http://" + m[1]
		waitReady(t, again, base)
		if out := again.stdout.String(); strings.Contains(out, "grf_") || strings.Contains(out, "curl") {
			t.Errorf("serve --demo on a database with data printed a key:\n%s", out)
		}
		if want := fmt.Sprintf("already has %d flags", loader.DemoSize()); !strings.Contains(again.stderr.String(), want) {
			t.Errorf("serve --demo on a database with data: stderr does not say %q:\n%s", want, again.stderr)
		}
		if code, body := get(t, base+"/api/public/flags?limit=2", key); code != http.StatusOK {
			t.Errorf("the first run's key on the second run: got %d, want 200: %s", code, body)
		}
		if err := again.stop(t); err != nil {
			t.Errorf("second serve: got %v, want nil", err)
		}
		rows, _ := listKeys(t, db)
		if len(rows) != 1 {
			t.Errorf("keys list after two demo runs: got %d keys, want 1", len(rows))
		}
	})
}

func TestServeErrors(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	// Hold a port so that serve cannot listen on it.
	s := startServe(t, noEnv, "--db", db, "--addr", "127.0.0.1:0", "--access-log=false")
	m := s.waitFor(t, "its listen address", 60*time.Second, func() []string {
		return listening.FindStringSubmatch(s.stderr.String())
	})
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"address in use", []string{"--db", db, "--addr", m[1]}},
		{"bad --refresh", []string{"--db", db, "--addr", "127.0.0.1:0", "--refresh", "sometimes"}},
		{"bad --key-refresh", []string{"--db", db, "--addr", "127.0.0.1:0", "--key-refresh", "@every never"}},
		{"bad --log-format", []string{"--db", db, "--addr", "127.0.0.1:0", "--log-format", "xml"}},
		{"bad --db", []string{"--db", "oracle://x", "--addr", "127.0.0.1:0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var out, errOut syncBuffer
			if err := run(ctx, append([]string{"serve"}, tc.args...), strings.NewReader(""), &out, &errOut, noEnv); err == nil {
				t.Errorf("serve %s: got nil error, want one", strings.Join(tc.args, " "))
			}
		})
	}
	if err := s.stop(t); err != nil {
		t.Errorf("serve: got %v, want nil", err)
	}
}
