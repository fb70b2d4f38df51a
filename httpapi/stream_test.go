package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
)

const streamWait = 10 * time.Second

// A stream open across a load gets one votes event with the new counts:
// a stream following slugs gets only those, one following every flag
// every change; a rejected flag comes in removed.
func TestStreamVotesAcrossLoad(t *testing.T) {
	forEachSource(t, fixtureLines(), func(t *testing.T, e *env) {
		s := e.streamAPI(httpapi.Options{})
		some := e.openStream(s, "/api/public/stream?slug=red-exactly-sixty,tie-a,not-a-flag")
		all := e.openStream(s, "/api/public/stream")
		for _, st := range []*sseStream{some, all} {
			h := st.resp.Header
			if st.resp.StatusCode != 200 || h.Get("Content-Type") != "text/event-stream; charset=utf-8" ||
				h.Get("Cache-Control") != "no-cache" || h.Get("X-Accel-Buffering") != "no" || h.Get("ETag") != "" ||
				h.Get("Content-Encoding") != "" || h.Get("X-RateLimit-Remaining") == "" ||
				h.Get("Access-Control-Allow-Origin") != "*" || h.Get("X-Request-Id") == "" {
				t.Fatalf("stream answered %d with %v", st.resp.StatusCode, h)
			}
			if ready := st.next(streamWait, "ready"); ready.id == "" || ready.data != "{}" {
				t.Errorf("ready event %+v", ready)
			}
		}
		e.exec("INSERT INTO users (id) VALUES (?)", "u1")
		e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f01", "u1", "red")   // red-exactly-sixty 3/2
		e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f05", "u1", "green") // red-six-of-ten 6/4
		e.reload()
		got := decodeVotes(t, some.next(streamWait, "votes"))
		if len(got.Flags) != 1 || got.Flags[0].Slug != "red-exactly-sixty" {
			t.Fatalf("following stream got %v, want red-exactly-sixty only", got.slugs())
		}
		if v := got.Flags[0].Votes; v.Red != 4 || v.Green != 2 || v.Total != 6 || v.Net != 2 || got.Flags[0].Dominant != "red" {
			t.Errorf("votes %+v %s, want 4/2 total 6 net 2 red", v, got.Flags[0].Dominant)
		}
		ev := all.next(streamWait, "votes")
		if ev.id == "" {
			t.Error("votes event without id")
		}
		if got := decodeVotes(t, ev); !slices.Equal(got.slugs(), []string{"red-exactly-sixty", "red-six-of-ten"}) {
			t.Errorf("stream of every flag got %v", got.slugs())
		}

		e.exec("UPDATE flags SET status = ? WHERE id = ?", "REJECTED", "f01")
		e.exec("UPDATE flags SET status = ? WHERE id = ?", "APPROVED", "f13")
		e.reload()
		got = decodeVotes(t, some.next(streamWait, "votes"))
		if len(got.Flags) != 0 || !slices.Equal(got.Removed, []string{"red-exactly-sixty"}) {
			t.Errorf("after the rejection the following stream got %+v", got)
		}
		got = decodeVotes(t, all.next(streamWait, "votes"))
		if !slices.Equal(got.slugs(), []string{"pending-one"}) || !slices.Equal(got.Removed, []string{"red-exactly-sixty"}) {
			t.Errorf("after the approval the stream of every flag got %+v", got)
		}
	})
}

// A load that changes no followed flag sends nothing to the stream; a
// heartbeat comment comes meanwhile.
func TestStreamHeartbeat(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	s := e.streamAPI(httpapi.Options{StreamHeartbeat: 50 * time.Millisecond})
	st := e.openStream(s, "/api/public/stream?slug=tie-a")
	st.next(streamWait, "ready")
	e.exec("INSERT INTO users (id) VALUES (?)", "u1")
	e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f05", "u1", "green")
	e.reload()
	for range 3 {
		if ev := st.next(streamWait, ":", "votes"); ev.event != ":" || ev.data != ": ping" {
			t.Fatalf("got %+v, want a ping comment and no votes event", ev)
		}
	}
}

// A revoked key's stream ends with reason revoked at the key load, and
// the key opens no more.
func TestStreamRevoked(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	s := e.streamAPI(httpapi.Options{})
	secret, k := e.newKey("streamer", 0)
	st := e.openStream(s, "/api/public/stream", "Authorization: Bearer "+secret)
	other := e.openStream(s, "/api/public/stream")
	st.next(streamWait, "ready")
	other.next(streamWait, "ready")
	if err := e.db.RevokeKey(context.Background(), k.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.ld.LoadKeys(context.Background()); err != nil {
		t.Fatal(err)
	}
	if end := st.next(streamWait, "end"); end.data != `{"reason":"revoked"}` {
		t.Errorf("end %q", end.data)
	}
	st.ended(streamWait)
	if again := e.openStream(s, "/api/public/stream", "Authorization: Bearer "+secret); again.resp.StatusCode != 401 {
		t.Errorf("a revoked key opened a stream: %d", again.resp.StatusCode)
	}
	// The other key's stream goes on.
	e.exec("INSERT INTO users (id) VALUES (?)", "u1")
	e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f05", "u1", "green")
	e.reload()
	other.next(streamWait, "votes")
}

// Stopping ends every stream with reason shutdown, and refuses new ones.
func TestStreamShutdown(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	s := e.streamAPI(httpapi.Options{})
	a := e.openStream(s, "/api/public/stream")
	b := e.openStream(s, "/api/public/stream?slug=tie-a")
	a.next(streamWait, "ready")
	b.next(streamWait, "ready")
	if n := s.api.Streams(); n != 2 {
		t.Fatalf("%d streams open, want 2", n)
	}
	s.api.CloseStreams()
	for _, st := range []*sseStream{a, b} {
		if end := st.next(streamWait, "end"); end.data != `{"reason":"shutdown"}` {
			t.Errorf("end %q", end.data)
		}
		st.ended(streamWait)
	}
	r := e.streamGet(s, "/api/public/stream")
	mustStatus(t, r, 503, "unavailable")
	if r.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	if n := s.api.Streams(); n != 0 {
		t.Errorf("%d streams open after the shutdown", n)
	}
}

// streamGet sends a GET to a stream API that the test expects to refuse,
// checked against openapi.yaml.
func (e *env) streamGet(s *streamAPI, path string, headers ...string) result {
	e.t.Helper()
	return e.streamDo(s, "GET", path, headers...)
}

// streamDo is e.do sent to a stream API.
func (e *env) streamDo(s *streamAPI, method, path string, headers ...string) result {
	e.t.Helper()
	old := e.srv
	e.srv = s.srv
	defer func() { e.srv = old }()
	return e.do(method, path, headers...)
}

// Reconnecting with the last event's id gets the events missed, only those
// of the flags followed, in order; an id the server does not know gets
// resync.
func TestStreamResume(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	s := e.streamAPI(httpapi.Options{MaxStreamsPerKey: 10})
	st := e.openStream(s, "/api/public/stream?slug=tie-a,tie-b")
	ready := st.next(streamWait, "ready")
	st.resp.Body.Close()
	e.exec("INSERT INTO users (id) VALUES (?)", "u1")
	e.exec("INSERT INTO users (id) VALUES (?)", "u2")
	for _, v := range []struct{ flag, user, color string }{
		{"f08", "u1", "red"}, {"f05", "u1", "red"}, {"f09", "u1", "green"}, {"f08", "u2", "green"},
	} {
		e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", v.flag, v.user, v.color)
		e.reload()
	}
	again := e.openStream(s, "/api/public/stream?slug=tie-a,tie-b", "Last-Event-ID: "+ready.id)
	var got []string
	var lastID string
	for range 3 {
		ev := again.next(streamWait, "votes", "resync", "ready")
		if ev.event != "votes" {
			t.Fatalf("got %s after %v, want the three missed votes events", ev.event, got)
		}
		v := decodeVotes(t, ev)
		f := v.Flags[0]
		got = append(got, f.Slug+" "+itoa(f.Votes.Red)+"/"+itoa(f.Votes.Green))
		lastID = ev.id
	}
	want := []string{"tie-a 11/10", "tie-b 10/11", "tie-a 11/11"}
	if !slices.Equal(got, want) {
		t.Errorf("missed events %v, want %v", got, want)
	}
	if r := again.next(streamWait, "ready", "votes"); r.event != "ready" {
		t.Errorf("after the missed events: %+v, want ready", r)
	}
	// Nothing missed since the last: only ready. The parameter works too.
	third := e.openStream(s, "/api/public/stream?slug=tie-a&lastEventId="+lastID)
	if r := third.next(streamWait, "ready", "votes", "resync"); r.event != "ready" {
		t.Errorf("resuming at the latest event: %+v, want ready", r)
	}
	for _, id := range []string{"0123456789abcdef-3", "nonsense", strings.Split(ready.id, "-")[0] + "-999"} {
		st := e.openStream(s, "/api/public/stream", "Last-Event-ID: "+id)
		if r := st.next(streamWait, "ready", "votes", "resync"); r.event != "resync" || r.data != "{}" {
			t.Errorf("Last-Event-ID %s: %+v, want resync", id, r)
		}
		st.resp.Body.Close()
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A key holds at most max_streams_per_key streams; one more is 429, and a
// closed stream frees its place. The process bound answers 503.
func TestStreamBounds(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	s := e.streamAPI(httpapi.Options{MaxStreamsPerKey: 2, MaxStreams: 3})
	a := e.openStream(s, "/api/public/stream")
	e.openStream(s, "/api/public/stream").next(streamWait, "ready")
	a.next(streamWait, "ready")
	r := e.streamGet(s, "/api/public/stream")
	mustStatus(t, r, 429, "rate_limited")
	if r.header.Get("Retry-After") == "" || r.header.Get("X-RateLimit-Limit") == "" {
		t.Errorf("429 headers %v", r.header)
	}
	// The budget admitted it before the stream bound refused it: it spent
	// its request, the third of this key's (openapi.yaml, StreamTooMany).
	if got, want := r.header.Get("X-RateLimit-Remaining"), remainingAfter(r, 3); got != want {
		t.Errorf("a stream refused by its key's bound: X-RateLimit-Remaining %s, want %s", got, want)
	}
	a.resp.Body.Close()
	waitFor(t, func() bool { return s.api.Streams() == 1 })
	e.openStream(s, "/api/public/stream").next(streamWait, "ready")

	secret, _ := e.newKey("second", 0)
	e.openStream(s, "/api/public/stream", "Authorization: Bearer "+secret).next(streamWait, "ready")
	if r := e.streamGet(s, "/api/public/stream", "Authorization: Bearer "+secret); r.status != 503 {
		t.Errorf("past the process bound: %d, want 503", r.status)
	} else {
		mustStatus(t, r, 503, "unavailable")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(streamWait); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
	}
}

// Refusals are problems like every route's: no key, bad slug lists, a
// repeated parameter. HEAD answers the headers and opens nothing.
func TestStreamRefusals(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	s := e.streamAPI(httpapi.Options{})
	r := e.streamGet(s, "/api/public/stream", "Authorization: ")
	mustStatus(t, r, 401, "unauthorized")
	if r.header.Get("WWW-Authenticate") == "" || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("401 headers %v", r.header)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = "s" + itoa(int64(i))
	}
	for _, q := range []string{"slug=", "slug=a,,b", "slug=a,", "slug=" + strings.Join(many, ","),
		"slug=" + strings.Repeat("x", 201), "slug=a%01b", "slug=a&slug=b"} {
		r := e.streamGet(s, "/api/public/stream?"+q)
		mustStatus(t, r, 400, "invalid_parameter")
		if r.json["param"] != "slug" {
			t.Errorf("%s: param %v, want slug", q, r.json["param"])
		}
	}
	// 100 distinct slugs, one repeated, are fine.
	e.openStream(s, "/api/public/stream?slug="+strings.Join(many[:100], ",")+",s1").next(streamWait, "ready")
	before := s.api.Streams()
	h := e.streamDo(s, "HEAD", "/api/public/stream")
	if h.status != 200 || h.header.Get("Content-Type") != "text/event-stream; charset=utf-8" || len(h.body) != 0 {
		t.Errorf("HEAD: %d %v %q", h.status, h.header, h.body)
	}
	if n := s.api.Streams(); n != before {
		t.Errorf("HEAD left %d streams open, want %d", n, before)
	}
}

// Opening a stream spends exactly one request of the key's budget, and
// what it sends afterwards (events, heartbeats) spends nothing.
func TestStreamSpendsOneRequest(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	s := e.streamAPI(httpapi.Options{StreamHeartbeat: 20 * time.Millisecond})
	remaining := func(h http.Header) int {
		t.Helper()
		n, err := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
		if err != nil {
			t.Fatalf("X-RateLimit-Remaining %q", h.Get("X-RateLimit-Remaining"))
		}
		return n
	}
	r := e.streamDo(s, "GET", "/api/public/categories")
	mustStatus(t, r, 200, "")
	first := remaining(r.header)
	st := e.openStream(s, "/api/public/stream")
	if got := remaining(st.resp.Header); got != first-1 {
		t.Fatalf("the stream's X-RateLimit-Remaining %d, want %d: opening spends one request", got, first-1)
	}
	st.next(streamWait, "ready")
	for i := range 3 {
		user := "spend-" + strconv.Itoa(i)
		e.exec("INSERT INTO users (id) VALUES (?)", user)
		e.exec("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)", "f01", user, "red")
		e.reload()
		st.next(streamWait, "votes")
	}
	st.next(streamWait, ":") // a heartbeat
	r = e.streamDo(s, "GET", "/api/public/categories")
	mustStatus(t, r, 200, "")
	if got := remaining(r.header); got != first-2 {
		t.Errorf("after the stream's events and heartbeats X-RateLimit-Remaining is %d, want %d", got, first-2)
	}
}

// remainingAfter is X-RateLimit-Remaining once n requests of r's key's
// budget (its X-RateLimit-Limit) are spent.
func remainingAfter(r result, n int) string {
	limit, _ := strconv.Atoi(r.header.Get("X-RateLimit-Limit"))
	return strconv.Itoa(limit - n)
}
