// Package yardstick holds the benchmark's yardsticks: plain net/http
// handlers that answer from bodies fixed at start, doing nothing a server
// could leave out. Plain sends one body with Content-Type and
// Content-Length alone (bench/ceiling's "/"); Headers sends it with the
// thirteen headers the contract puts on every authenticated success
// (bench/ceiling's "/headers"), their values built once at start: the
// least any net/http server answering the contract pays per request,
// whatever it does besides. Paths sends, with the same headers, each
// request URI's own body (bench/ceiling's "/api/"): the yardstick of each
// case, serving the bytes flagpole serves for the case's paths.
package yardstick

import (
	"net/http"
	"strconv"
	"strings"
)

// Plain answers every request with body, as JSON.
func Plain(body []byte) http.Handler {
	n := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Content-Length", n)
		w.Write(body)
	})
}

// contractHeaders are the headers of an authenticated success besides
// Content-Length, with values of the lengths flagpole sends.
var contractHeaders = [...][2]string{
	{"Access-Control-Allow-Origin", "*"},
	{"Access-Control-Expose-Headers", "ETag, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, WWW-Authenticate"},
	{"Cache-Control", "private, no-cache"},
	{"Content-Type", "application/json; charset=utf-8"},
	{"Etag", `"ba5cb7535b6b6fc9"`},
	{"Ratelimit", `"per-key";r=19999;t=60`},
	{"Ratelimit-Policy", `"per-key";q=20000;w=60`},
	{"Vary", "Accept-Encoding"},
	{"X-Ratelimit-Limit", "20000"},
	{"X-Ratelimit-Remaining", "19999"},
	{"X-Ratelimit-Reset", "1795440419"},
	{"X-Request-Id", "6936f15a7523dec8-2q1"},
}

// contractValues are contractHeaders' values as header map entries,
// made once.
var contractValues = func() (v [len(contractHeaders)][]string) {
	for i, kv := range contractHeaders {
		v[i] = []string{kv[1]}
	}
	return v
}()

// HeaderCount is how many headers Headers sends (Content-Length included;
// net/http adds Date).
const HeaderCount = len(contractHeaders) + 1

// answer is one response of Headers or Paths: its body and Content-Length.
type answer struct {
	body   []byte
	length []string
}

func newAnswer(body []byte) answer { return answer{body, []string{strconv.Itoa(len(body))}} }

// write sends a with the contract's headers.
func (a answer) write(w http.ResponseWriter) {
	h := w.Header()
	for i, kv := range contractHeaders {
		h[kv[0]] = contractValues[i]
	}
	h["Content-Length"] = a.length
	w.Write(a.body)
}

// Headers answers every request with body and the contract's headers.
func Headers(body []byte) http.Handler {
	a := newAnswer(body)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { a.write(w) })
}

// Bodies are what Paths answers: the body of each request URI (path and
// query, as sent), and the gzip form of those a case requests with
// Accept-Encoding: gzip.
type Bodies struct {
	Plain map[string][]byte `json:"plain"`
	Gzip  map[string][]byte `json:"gzip,omitempty"`
}

// Paths answers each request URI of b with its body and the contract's
// headers (the gzip form, with Content-Encoding: gzip, when the request
// accepts gzip and b has one), and any other with 404.
func Paths(b Bodies) http.Handler {
	plain, gz := answers(b.Plain), answers(b.Gzip)
	gzipValue := []string{"gzip"}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(gz) > 0 && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			if a, ok := gz[r.RequestURI]; ok {
				w.Header()["Content-Encoding"] = gzipValue
				a.write(w)
				return
			}
		}
		a, ok := plain[r.RequestURI]
		if !ok {
			http.NotFound(w, r)
			return
		}
		a.write(w)
	})
}

func answers(bodies map[string][]byte) map[string]answer {
	m := make(map[string]answer, len(bodies))
	for uri, body := range bodies {
		m[uri] = newAnswer(body)
	}
	return m
}

// Mux serves Plain at "/", Headers at "/headers" and, when paths is not
// nil, Paths(*paths) under "/api/".
func Mux(body []byte, paths *Bodies) http.Handler {
	m := http.NewServeMux()
	m.Handle("/", Plain(body))
	m.Handle("/headers", Headers(body))
	if paths != nil {
		m.Handle("/api/", Paths(*paths))
	}
	return m
}
