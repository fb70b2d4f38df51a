package httpapi_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
)

// streamAPI is a second API over an env's store, with the stream options
// a test sets; its server is closed after its streams are ended.
type streamAPI struct {
	api *httpapi.API
	srv *httptest.Server
}

func (e *env) streamAPI(opt httpapi.Options) *streamAPI {
	e.t.Helper()
	opt.Store = e.store
	api, err := httpapi.New(opt)
	if err != nil {
		e.t.Fatal(err)
	}
	s := &streamAPI{api: api, srv: httptest.NewServer(api.Handler())}
	e.t.Cleanup(func() { api.CloseStreams(); s.srv.Close(); api.Close() })
	return s
}

// sseEvent is one event of a stream; a comment line comes as event ":".
type sseEvent struct {
	id, event, data string
}

// sseStream reads a stream's events as they come.
type sseStream struct {
	t      testing.TB
	resp   *http.Response
	events chan sseEvent
}

// openStream sends GET path to s with the env's key (headers as e.do
// takes them) and, on 200, reads its events in the background. The
// response's headers are validated against openapi.yaml.
func (e *env) openStream(s *streamAPI, path string, headers ...string) *sseStream {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := rawTransport.RoundTrip(req)
	if err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	st := &sseStream{t: e.t, resp: resp, events: make(chan sseEvent, 4096)}
	e.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		close(st.events) // no events: next fails at once, naming the status
		return st
	}
	e.validate(req, resp, nil)
	go st.read()
	return st
}

func (st *sseStream) read() {
	defer close(st.events)
	sc := bufio.NewScanner(st.resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev != (sseEvent{}) {
				st.events <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, ":"):
			st.events <- sseEvent{event: ":", data: line}
		default:
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimPrefix(v, " ")
			switch k {
			case "id":
				ev.id = v
			case "event":
				ev.event = v
			case "data":
				ev.data += v
			}
		}
	}
}

// next returns the next event of one of the kinds (comments skipped
// unless ":" is one), failing the test when none comes within wait or the
// stream ends.
func (st *sseStream) next(wait time.Duration, kinds ...string) sseEvent {
	st.t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case ev, ok := <-st.events:
			if !ok {
				st.t.Fatalf("the stream (status %d) ended before an event of %v", st.resp.StatusCode, kinds)
			}
			for _, k := range kinds {
				if ev.event == k {
					return ev
				}
			}
		case <-deadline:
			st.t.Fatalf("no event of %v within %s", kinds, wait)
		}
	}
}

// ended waits for the stream to close and returns its events until then.
func (st *sseStream) ended(wait time.Duration) []sseEvent {
	st.t.Helper()
	var out []sseEvent
	deadline := time.After(wait)
	for {
		select {
		case ev, ok := <-st.events:
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-deadline:
			st.t.Fatalf("the stream did not end within %s; it sent %v", wait, out)
		}
	}
}

// streamVotes is the data of a votes event.
type streamVotes struct {
	At    string `json:"at"`
	Flags []struct {
		Slug  string `json:"slug"`
		Votes struct {
			Red, Green, Total, Net int64
		} `json:"votes"`
		Dominant string `json:"dominant"`
	} `json:"flags"`
	Removed []string `json:"removed"`
}

func decodeVotes(t testing.TB, ev sseEvent) streamVotes {
	t.Helper()
	var v streamVotes
	dec := json.NewDecoder(strings.NewReader(ev.data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("votes data %q: %v", ev.data, err)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", v.At); err != nil || !strings.HasSuffix(v.At, "Z") {
		t.Errorf("at %q is not a timestamp of the contract", v.At)
	}
	return v
}

// slugsIn lists the slugs of a votes event's flags.
func (v streamVotes) slugs() []string {
	out := make([]string, len(v.Flags))
	for i, f := range v.Flags {
		out[i] = f.Slug
	}
	return out
}
