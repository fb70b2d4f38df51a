package httpapi_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// wireServer serves h as flagpole serve does: on a listener wrapped by
// WireErrors, with its 32 KiB bound on the request's head.
func wireServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = httpapi.WireErrors(srv.Listener)
	srv.Config.MaxHeaderBytes = httpapi.MaxHeaderBytes
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// rawExchange writes req on a new connection and reads one answer.
func rawExchange(t *testing.T, addr, req string) (*http.Response, []byte) {
	t.Helper()
	return loadertest.Exchange(t, "", addr, req)
}

// TestWireErrors: the requests net/http refuses before any handler sees
// them get a problem+json answer with the CORS headers and a request id,
// like every other error, instead of net/http's plain text.
func TestWireErrors(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	addr := wireServer(t, e.api.Handler())
	auth := "Authorization: Bearer " + e.key + "\r\n"
	// A request line and header fields of exactly n bytes with the blank
	// line that ends them.
	head := func(n int) string {
		start := "GET /api/public/flags?limit=1 HTTP/1.1\r\nHost: x\r\n" + auth + "X-Pad: "
		return start + strings.Repeat("x", n-len(start)-4) + "\r\n\r\n"
	}
	for _, c := range []struct {
		name, req string
		status    int
		param     string
	}{
		{"bad escape", "GET /api/public/flag/%zz HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 400, "request"},
		{"space in target", "GET /api/public/flags?q=a b HTTP/1.1\r\nHost: x\r\n\r\n", 400, "request"},
		{"no Host", "GET /api/public/flags HTTP/1.1\r\n" + auth + "\r\n", 400, "Host"},
		{"two Hosts", "GET /api/public/flags HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400, "request"},
		{"bad header name", "GET /api/public/flags HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", 400, "header"},
		{"header line without colon", "GET /api/public/flags HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n", 400, "request"},
		{"huge header", "GET /api/public/flags HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("x", 60000) + "\r\n\r\n", 431, "header"},
		{"a byte over 32 KiB", head(32<<10 + 1), 431, "header"},
		{"huge URL", "GET /api/public/flags?pad=" + strings.Repeat("x", 100000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 431, "header"},
		{"unknown coding", "GET /api/public/flags HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: foo\r\n\r\n", 501, "Transfer-Encoding"},
		{"HTTP/9.9", "GET /api/public/flags HTTP/9.9\r\nHost: x\r\n\r\n", 505, "HTTP-version"},
		{"HTTP/2.0", "GET /api/public/flags HTTP/2.0\r\nHost: x\r\n\r\n", 505, "HTTP-version"},
		{"an Expect other than 100-continue", "GET /api/public/flags HTTP/1.1\r\nHost: x\r\nExpect: tea\r\n" + auth + "\r\n", 417, "Expect"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, body := rawExchange(t, addr, c.req)
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, c.status, body)
			}
			h := res.Header
			for k, want := range map[string]string{
				"Content-Type":                  "application/problem+json",
				"Access-Control-Allow-Origin":   "*",
				"Access-Control-Expose-Headers": contractExpose,
				"Cache-Control":                 "no-store",
			} {
				if got := h.Get(k); got != want {
					t.Errorf("%s %q, want %q", k, got, want)
				}
			}
			if !res.Close {
				t.Error("the connection is not closed after the answer")
			}
			if _, err := http.ParseTime(h.Get("Date")); err != nil {
				t.Errorf("Date %q: %v", h.Get("Date"), err)
			}
			var p struct {
				Type, Title, Detail, Code, Param, RequestID string
				Status                                      int
			}
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			id := h.Get("X-Request-Id")
			if id == "" || p.RequestID != id {
				t.Errorf("X-Request-Id %q, body's requestId %q", id, p.RequestID)
			}
			if p.Type != "about:blank" || p.Status != c.status || p.Title != http.StatusText(c.status) ||
				p.Code != "invalid_parameter" || p.Param != c.param || p.Detail == "" {
				t.Errorf("body %s, want status %d, param %q", body, c.status, c.param)
			}
		})
	}
	// The answers of the handler pass untouched: a good request, one of
	// exactly 32 KiB, one with Expect: 100-continue.
	for _, req := range []string{
		"GET /api/public/flags?limit=1 HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n",
		head(32 << 10),
		"GET /api/public/flags?limit=1 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n" + auth + "\r\n",
	} {
		res, body := rawExchange(t, addr, req)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json; charset=utf-8" || !json.Valid(body) {
			t.Errorf("%.60q (%d bytes): %d %q %.80s", req, len(req), res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
	first, _ := rawExchange(t, addr, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
	second, _ := rawExchange(t, addr, "GET /api/public/flags HTTP/1.1\r\n\r\n")
	if a, b := first.Header.Get("X-Request-Id"), second.Header.Get("X-Request-Id"); a == "" || a == b {
		t.Errorf("request ids %q and %q: want two new ones", a, b)
	}
}

// TestWireHandlerPlainText: a handler's answer that comes as close to
// net/http's own as a handler can (plain text, Connection: close, no
// Date, a 400) is still the handler's: net/http writes its headers sorted,
// so Connection comes before Content-Type and the form differs.
func TestWireHandlerPlainText(t *testing.T) {
	addr := wireServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Date"] = nil
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Connection", "close")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "400 Bad Request")
	}))
	res, body := rawExchange(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if res.StatusCode != 400 || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" || string(body) != "400 Bad Request" {
		t.Errorf("the handler's answer was replaced: %d %v %q", res.StatusCode, res.Header, body)
	}
}

// TestBusy: the answer to a connection over the bounds is a problem with
// the headers every answer carries.
func TestBusy(t *testing.T) {
	a, b := httpapi.Busy(), httpapi.Busy()
	res, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(a))), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	var p struct {
		Status          int
		Code, RequestID string
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	if res.StatusCode != 503 || p.Status != 503 || p.Code != "unavailable" || res.Header.Get("Retry-After") != "1" ||
		res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Content-Type") != "application/problem+json" ||
		p.RequestID == "" || p.RequestID != res.Header.Get("X-Request-Id") || !res.Close {
		t.Errorf("busy answer:\n%s", a)
	}
	if string(a) == string(b) {
		t.Error("two busy answers with one request id")
	}
}
