package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// startSignalled runs serve with args in the process, handing it the
// signals sent on the channel it returns, as main hands it the process's;
// atTerminal makes its standard error a terminal.
func startSignalled(t *testing.T, atTerminal bool, args ...string) (*server, chan<- os.Signal) {
	t.Helper()
	sigs := make(chan os.Signal, 4)
	ctx, cancel := context.WithCancel(withSignals(context.Background(), sigs))
	s := &server{stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	var stderr io.Writer = s.stderr
	if atTerminal {
		tt := &tty{}
		s.stderr, stderr = &tt.syncBuffer, tt
	}
	go func() {
		s.done <- run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), s.stdout, stderr, noEnv)
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
	return s, sigs
}

// readyReason is /readyz's status and the reason its 503 gives.
func readyReason(t *testing.T, url string) (int, string) {
	t.Helper()
	st, body := get(t, url+"/readyz", "")
	var m struct {
		Reason string `json:"reason"`
	}
	json.Unmarshal(body, &m)
	return st, m.Reason
}

// TestDrain: SIGTERM makes /readyz answer 503 "shutting down" on both
// addresses at once, while the API goes on answering (each answer closing
// its connection) and opening streams for shutdown_delay. A second
// SIGTERM skips what is left of the delay: the API stops accepting and its
// streams get an end event (reason shutdown).
func TestDrain(t *testing.T) {
	r := newLiveRig(t, loader.SQLite)
	s, sigs := startSignalled(t, false, "--db", r.dbURL, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
		"--shutdown-delay", "10m", "--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	admin := "http://" + adminAddr.FindStringSubmatch(s.stderr.String())[1]
	waitReady(t, s, base)
	_, slug := r.anyFlag(t)
	before := sseLines(t, openStream(t, base, r.key, slug).Body, time.Minute)
	before("event: ready")

	sigs <- syscall.SIGTERM
	until(t, "/readyz answers 503 after SIGTERM", 10*time.Second, func() bool {
		st, _ := readyReason(t, base)
		return st == 503
	})
	for _, addr := range []string{base, admin} {
		if st, why := readyReason(t, addr); st != 503 || why != "shutting down" {
			t.Errorf("%s/readyz while draining: %d %q, want 503 \"shutting down\"", addr, st, why)
		}
	}
	// The API serves on, and tells each client to take a new connection.
	req, _ := http.NewRequest(http.MethodGet, base+"/api/public/flags?limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+r.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("a request while draining: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !resp.Close {
		t.Errorf("a request while draining: %d, Connection %q; want 200 and close", resp.StatusCode, resp.Header.Get("Connection"))
	}
	during := sseLines(t, openStream(t, base, r.key, slug).Body, time.Minute)
	during("event: ready")

	sigs <- syscall.SIGTERM // skips the ten minutes left
	for _, next := range []func(string) string{before, during} {
		next("event: end")
		if data := next("data: "); data != `data: {"reason":"shutdown"}` {
			t.Errorf("stream end %s, want reason shutdown", data)
		}
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 5*time.Second); err == nil {
		c.Close()
		t.Error("the API accepts a connection after the drain")
	}
	select {
	case err := <-s.done:
		s.stopped = true
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not return after the second SIGTERM\nstderr:\n%s", s.stderr)
	}
	if logs := s.stderr.String(); !strings.Contains(logs, "shutdown delay is skipped") {
		t.Errorf("no log line for the skipped delay:\n%s", logs)
	}
}

// TestDrainInFlight: a request in flight when the API stops accepting
// (held here by a Redis that stopped answering, for up to redis_timeout)
// gets its answer, and the admin address answers /readyz, 503 "shutting
// down", until serve returns.
func TestDrainInFlight(t *testing.T) {
	r := newLiveRig(t, loader.SQLite)
	redis, stall := viaProxy(t, loadertest.RedisURL(t))
	s, sigs := startSignalled(t, false, "--db", r.dbURL, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
		"--redis", redis, "--redis-prefix", redisPrefix(), "--redis-timeout", "15s", "--shutdown-delay", "10m",
		"--shutdown-timeout", "1m",
		"--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	admin := "http://" + adminAddr.FindStringSubmatch(s.stderr.String())[1]
	waitReady(t, s, base)
	if st := getStatus(base+"/api/public/stats", r.key); st != 200 {
		t.Fatalf("/stats before the stall: %d", st)
	}
	sigs <- syscall.SIGTERM
	until(t, "/readyz answers 503 after SIGTERM", 10*time.Second, func() bool {
		st, _ := readyReason(t, base)
		return st == 503
	})
	stall.Stall()
	answered := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/public/stats", nil)
		req.Header.Set("Authorization", "Bearer "+r.key)
		resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
		if err != nil {
			answered <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	until(t, "the request waits on the stalled Redis", 10*time.Second, func() bool { return stall.Held() > 0 })

	sigs <- syscall.SIGTERM
	until(t, "the API stops accepting", 10*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	if st, why := readyReason(t, admin); st != 503 || why != "shutting down" {
		t.Errorf("admin /readyz with a request in flight: %d %q, want 503 \"shutting down\"", st, why)
	}
	select {
	case st := <-answered:
		t.Fatalf("the request answered %d before Redis's timeout: it was not in flight", st)
	case err := <-s.done:
		s.stopped = true
		t.Fatalf("serve returned %v with a request in flight", err)
	default:
	}
	// Past redis_timeout the request is decided in-process and answered.
	if st := <-answered; st != 200 {
		t.Errorf("the request in flight at shutdown: %d, want 200", st)
	}
	select {
	case err := <-s.done:
		s.stopped = true
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not return after its last request\nstderr:\n%s", s.stderr)
	}
	if st := getStatus(admin+"/readyz", ""); st != 0 {
		t.Errorf("admin /readyz after serve returned: %d, want no answer", st)
	}
}

// TestInterruptAtTerminal: Ctrl-C at a terminal (SIGINT, standard error a
// terminal) stops at once, whatever shutdown_delay says; SIGINT elsewhere
// drains as SIGTERM does.
func TestInterruptAtTerminal(t *testing.T) {
	r := newLiveRig(t, loader.SQLite)
	args := []string{"--db", r.dbURL, "--addr", "127.0.0.1:0", "--shutdown-delay", "10m", "--log-format", "json",
		"--access-log=false", "--snapshot-daily=false"}
	s, sigs := startSignalled(t, true, args...)
	waitReady(t, s, listenAddr(t, s))
	sigs <- os.Interrupt
	select {
	case err := <-s.done:
		s.stopped = true
		if err != nil {
			t.Errorf("serve returned %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("serve at a terminal did not stop on SIGINT within a minute (shutdown_delay 10m)\nstderr:\n%s", s.stderr)
	}

	s, sigs = startSignalled(t, false, args...)
	base := listenAddr(t, s)
	waitReady(t, s, base)
	sigs <- os.Interrupt
	until(t, "/readyz answers 503 after SIGINT", 10*time.Second, func() bool {
		st, why := readyReason(t, base)
		return st == 503 && why == "shutting down"
	})
	if st := getStatus(base+"/api/public/flags", r.key); st != 200 {
		t.Errorf("a request while draining after SIGINT: %d, want 200", st)
	}
}
