package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// script is a stream server whose answer to the n-th request is the n-th
// of its turns; past the last turn it answers 503. It records what each
// request asked.
type script struct {
	t     *testing.T
	srv   *httptest.Server
	turns []func(w http.ResponseWriter, r *http.Request)
	mu    sync.Mutex
	asked []string // per request: its Last-Event-ID, its query and its Authorization
}

func newScript(t *testing.T, turns ...func(w http.ResponseWriter, r *http.Request)) *script {
	s := &script{t: t, turns: turns}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		n := len(s.asked)
		s.asked = append(s.asked, r.Header.Get("Last-Event-ID")+" "+r.URL.RawQuery+" "+r.Header.Get("Authorization"))
		s.mu.Unlock()
		if n >= len(s.turns) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		s.turns[n](w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *script) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}

// events answers 200 with body as a text/event-stream.
func events(body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

// problem answers status with a problem body and headers.
func problem(status int, code string, headers ...string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, h := range headers {
			k, v, _ := strings.Cut(h, ": ")
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"about:blank","title":%q,"status":%d,"detail":"no","code":%q}`, http.StatusText(status), status, code)
	}
}

// run follows s with the test's bounds until handle or the follower
// stops, and returns the events handed over, the waits asked for between
// attempts, and Follow's error. stopAfter ends the follow (with errStop)
// after that many events; 0 lets it run.
func run(t *testing.T, s *script, params *StreamVotesParams, stopAfter int, cfg followConfig) ([]string, []time.Duration, error) {
	t.Helper()
	c, err := NewClient(s.srv.URL, WithBearerKey("grf_test"))
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	if cfg.wait == nil {
		cfg.wait = func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			if len(waits) > 20 {
				return errors.New("too many attempts")
			}
			return ctx.Err()
		}
	}
	var got []string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = c.follow(ctx, params, func(ev StreamEvent) error {
		line := ev.Type + " " + ev.ID
		switch {
		case ev.Votes != nil:
			line += fmt.Sprintf(" %s=%d", ev.Votes.Flags[0].Slug, ev.Votes.Flags[0].Votes.Red)
		case ev.End != nil:
			line += " " + string(ev.End.Reason)
		}
		got = append(got, line)
		if stopAfter > 0 && len(got) == stopAfter {
			return errStop
		}
		return nil
	}, cfg)
	return got, waits, err
}

var errStop = errors.New("stop")

var testFollow = followConfig{retry: 2 * time.Second, maxDelay: 30 * time.Second, idle: 10 * time.Second, maxEvent: 1 << 20}

const votes1 = `{"at":"2026-11-29T01:46:02.117Z","flags":[{"slug":"a","votes":{"red":2,"green":1,"total":3,"net":1},"dominant":"red"}]}`

// A stream that closes is opened again after the retry the server sent,
// with the last event's id; the server's resync and ready come through,
// and the key and the followed slugs go with every request.
func TestFollowResumes(t *testing.T) {
	s := newScript(t,
		events("retry: 500\n\nid: s1-1\nevent: ready\ndata: {}\n\n: ping\n\nid: s1-2\nevent: votes\ndata: "+votes1+"\n\n"),
		events("retry: 700\n\nevent: resync\ndata: {}\n\nid: s2-9\nevent: ready\ndata: {}\n\n"),
	)
	slug := "a"
	got, waits, err := run(t, s, &StreamVotesParams{Slug: &slug}, 4, testFollow)
	if !errors.Is(err, errStop) {
		t.Fatalf("Follow returned %v, want handle's error", err)
	}
	want := []string{"ready s1-1", "votes s1-2 a=2", "resync s1-2", "ready s2-9"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	if !slices.Equal(waits, []time.Duration{500 * time.Millisecond}) {
		t.Errorf("waits %v, want the server's 500ms", waits)
	}
	asked := s.requests()
	if want := []string{" slug=a Bearer grf_test", "s1-2 slug=a Bearer grf_test"}; !slices.Equal(asked, want) {
		t.Errorf("requests %q, want %q", asked, want)
	}
}

// An end event: revoked stops with ErrRevoked; any other reason, one this
// package does not know included, reconnects.
func TestFollowEnd(t *testing.T) {
	s := newScript(t,
		events("id: x-1\nevent: ready\ndata: {}\n\nevent: end\ndata: {\"reason\":\"shutdown\"}\n\n"),
		events("id: x-2\nevent: ready\ndata: {}\n\nevent: end\ndata: {\"reason\":\"moved\"}\n\n"),
		events("id: x-3\nevent: ready\ndata: {}\n\nevent: end\ndata: {\"reason\":\"revoked\"}\n\n"),
	)
	got, waits, err := run(t, s, nil, 0, testFollow)
	if !errors.Is(err, ErrRevoked) {
		t.Fatalf("Follow returned %v, want ErrRevoked", err)
	}
	want := []string{"ready x-1", "end x-1 shutdown", "ready x-2", "end x-2 moved", "ready x-3", "end x-3 revoked"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	if len(waits) != 2 || len(s.requests()) != 3 {
		t.Errorf("%d waits and %d requests, want 2 and 3 (none after revoked)", len(waits), len(s.requests()))
	}
}

// A refusal that another try cannot mend (400, 401, 404) is returned with
// its problem, at once.
func TestFollowRefused(t *testing.T) {
	for _, c := range []struct {
		status int
		code   KnownProblemCode
	}{{401, KnownProblemCodeUnauthorized}, {400, KnownProblemCodeInvalidParameter}, {404, KnownProblemCodeNotFound}} {
		s := newScript(t, problem(c.status, string(c.code)))
		_, waits, err := run(t, s, nil, 0, testFollow)
		var re *RefusedError
		if !errors.As(err, &re) || re.StatusCode != c.status || re.Problem == nil || re.Problem.Code != c.code {
			t.Errorf("%d: Follow returned %v, want a RefusedError with its problem", c.status, err)
		}
		if len(waits) != 0 {
			t.Errorf("%d: waited %v before returning", c.status, waits)
		}
	}
}

// 429 and 503 are tried again after their Retry-After when it is longer
// than the wait; failed attempts in a row double the wait up to its cap,
// and a stream that opens starts it over.
func TestFollowBackoff(t *testing.T) {
	s := newScript(t,
		problem(429, "rate_limited", "Retry-After: 7"),
		problem(503, "unavailable"),
		problem(503, "unavailable", "Retry-After: 1"),
		problem(500, "internal"),
		problem(502, "internal"),
		problem(504, "internal"),
		problem(503, "unavailable"),
		events("id: y-1\nevent: ready\ndata: {}\n\n"),
		problem(503, "unavailable"),
		events("id: y-2\nevent: ready\ndata: {}\n\n"),
	)
	cfg := testFollow
	cfg.maxDelay = 20 * time.Second
	got, waits, err := run(t, s, nil, 2, cfg)
	if !errors.Is(err, errStop) || !slices.Equal(got, []string{"ready y-1", "ready y-2"}) {
		t.Fatalf("Follow returned %v after %q", err, got)
	}
	sec := time.Second
	want := []time.Duration{7 * sec, 4 * sec, 8 * sec, 16 * sec, 20 * sec, 20 * sec, 20 * sec, 2 * sec, 2 * sec}
	if !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
}

// A network failure is tried again like a 503 without Retry-After.
func TestFollowNetworkError(t *testing.T) {
	s := newScript(t)
	s.srv.Close()
	cfg := testFollow
	cfg.wait = nil
	_, waits, err := run(t, s, nil, 0, cfg)
	if err == nil || len(waits) != 21 || waits[0] != 2*time.Second || waits[20] != 30*time.Second {
		t.Errorf("Follow returned %v after waits %v; want it to try again, doubling to 30s", err, waits)
	}
}

// A stream that stays silent past the idle bound is taken as dead and
// opened again from its last event.
func TestFollowIdle(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s := newScript(t,
		func(w http.ResponseWriter, r *http.Request) {
			events("id: z-1\nevent: ready\ndata: {}\n\n")(w, r)
			w.(http.Flusher).Flush()
			select { // silent until the client gives up on it, or the test ends
			case <-r.Context().Done():
			case <-release:
			}
		},
		events("id: z-2\nevent: ready\ndata: {}\n\n"),
	)
	cfg := testFollow
	cfg.idle = 100 * time.Millisecond
	got, _, err := run(t, s, nil, 2, cfg)
	if !errors.Is(err, errStop) || !slices.Equal(got, []string{"ready z-1", "ready z-2"}) {
		t.Fatalf("Follow returned %v after %q", err, got)
	}
	if asked := s.requests(); len(asked) != 2 || !strings.HasPrefix(asked[1], "z-1 ") {
		t.Errorf("requests %q, want a second one from z-1", asked)
	}
}

// An event past the bound ends Follow with an error rather than growing
// without end; a votes event that is not the document's shape is an error
// too.
func TestFollowBadEvents(t *testing.T) {
	s := newScript(t, events("event: votes\ndata: "+strings.Repeat("x", 2000)+"\n\n"))
	cfg := testFollow
	cfg.maxEvent = 1000
	if _, _, err := run(t, s, nil, 0, cfg); !errors.Is(err, errEventTooLarge) {
		t.Errorf("a large event: %v, want errEventTooLarge", err)
	}
	s = newScript(t, events("event: votes\ndata: {\"flags\":7}\n\n"))
	if _, _, err := run(t, s, nil, 0, testFollow); err == nil || !strings.Contains(err.Error(), "votes event") {
		t.Errorf("a votes event of another shape: %v", err)
	}
}

// Follow returns when its context ends, while it waits as while it reads.
func TestFollowContext(t *testing.T) {
	s := newScript(t, func(w http.ResponseWriter, r *http.Request) {
		events("id: c-1\nevent: ready\ndata: {}\n\n")(w, r)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c, err := NewClient(s.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = c.Follow(ctx, nil, func(ev StreamEvent) error {
		cancel() // the stream is open: end the follow from outside
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Follow returned %v, want context.Canceled", err)
	}
}
