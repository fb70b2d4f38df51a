package main

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
)

// A live stream outlives write_timeout (each write moves its own
// deadline), brings a vote written after it opened, and serve's stop
// ends it with an end event (reason shutdown) rather than waiting for it.
func TestServeStream(t *testing.T) {
	r := newLiveRig(t, loader.SQLite)
	s := startServe(t, noEnv, "--db", r.dbURL, "--addr", "127.0.0.1:0", "--refresh", "@every 1s", "--write-timeout", "1s",
		"--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	waitReady(t, s, base)
	id, slug := r.anyFlag(t)
	resp := openStream(t, base, r.key, slug)
	next := sseLines(t, resp.Body, 20*time.Second)
	next("event: ready")
	time.Sleep(1500 * time.Millisecond) // past write_timeout
	r.vote(t, id)
	next("event: votes")
	if data := next("data: "); !strings.Contains(data, `"slug":"`+slug+`"`) {
		t.Errorf("votes data %s, want the flag %s", data, slug)
	}

	start := time.Now()
	if err := s.stop(t); err != nil { // the lines are read meanwhile
		t.Errorf("serve returned %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("serve took %s to stop with a stream open", took)
	}
	next("event: end")
	if data := next("data: "); data != `data: {"reason":"shutdown"}` {
		t.Errorf("end %s, want reason shutdown", data)
	}
}

// sseLines reads body line by line as it arrives and returns a function
// that skips to the next line starting with prefix, failing the test when
// the stream closes first or no such line comes within timeout.
func sseLines(t *testing.T, body io.Reader, timeout time.Duration) func(prefix string) string {
	lines := make(chan string, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return func(prefix string) string {
		t.Helper()
		deadline := time.After(timeout)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the stream closed before a line %q", prefix)
				}
				if strings.HasPrefix(l, prefix) {
					return l
				}
			case <-deadline:
				t.Fatalf("no line %q within %s", prefix, timeout)
			}
		}
	}
}

// openStream opens base's live stream of slug with key; it fails the test
// unless the answer is 200 text/event-stream, and closes it at the end.
func openStream(t *testing.T, base, key, slug string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/api/public/stream?slug="+slug, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream of %s: %d %s", base, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp
}

// Streams never take the connections that health probes and ordinary
// requests need: with --max-conns 10, streams are refused with a 503
// problem once they hold their share (three quarters), and /healthz and
// an authenticated request are still answered on new connections while
// they stay open.
func TestStreamsLeaveAReserve(t *testing.T) {
	r := newLiveRig(t, loader.SQLite)
	s := startServe(t, noEnv, "--db", r.dbURL, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--max-conns", "10",
		"--max-streams-per-key", "20", "--access-log=false", "--snapshot-daily=false")
	base, admin := listenAddr(t, s), adminBase(t, s)
	waitReady(t, s, base)
	fresh := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	open := 0
	var refused *http.Response
	for refused == nil && open < 10 {
		req, err := http.NewRequest(http.MethodGet, base+"/api/public/stream", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+r.key)
		resp, err := fresh.Do(req)
		if err != nil {
			t.Fatalf("stream %d: %v", open+1, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK {
			refused = resp
			break
		}
		sseLines(t, resp.Body, 10*time.Second)("event: ready")
		open++
	}
	if refused == nil {
		t.Fatalf("%d streams open on 10 connections: none refused", open)
	}
	body, _ := io.ReadAll(refused.Body)
	if refused.StatusCode != http.StatusServiceUnavailable || refused.Header.Get("Content-Type") != "application/problem+json" ||
		refused.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"code":"unavailable"`) ||
		!strings.Contains(string(body), "live streams") {
		t.Errorf("stream %d: %d %v %s, want the stream cap's 503 problem", open+1, refused.StatusCode, refused.Header, body)
	}
	if open != 7 {
		t.Errorf("%d streams open before the refusal, want 7 (three quarters of 10)", open)
	}
	for i := range 5 {
		if resp, err := fresh.Get(base + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("/healthz %d with %d streams open: %v %v", i+1, open, resp, err)
		} else {
			resp.Body.Close()
		}
	}
	// What the operator sees: the streams' connections, their cap, the
	// refusal.
	for name, want := range map[string]float64{"flagpole_http_stream_connections": 7, "flagpole_streams_max": 7} {
		if got := scrape(t, admin, name, ""); got != want {
			t.Errorf("%s %v, want %v", name, got, want)
		}
	}
	if got := scrape(t, admin, "flagpole_http_streams_refused_total", ""); got < 1 {
		t.Errorf("flagpole_http_streams_refused_total %v after a refusal", got)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/api/public/flags?limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+r.key)
	if resp, err := fresh.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/flags with %d streams open: %v %v", open, resp, err)
	} else {
		resp.Body.Close()
	}
}
