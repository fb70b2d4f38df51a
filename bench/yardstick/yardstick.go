// Package yardstick holds the benchmark's yardsticks: plain net/http
// handlers that answer every request with one fixed body, doing nothing a
// server could leave out. Plain sends the body with Content-Type and
// Content-Length alone (bench/ceiling's "/"); Headers sends it with the
// thirteen headers the contract puts on every authenticated success
// (bench/ceiling's "/headers"), their values built once at start: the
// least any net/http server answering the contract pays per request,
// whatever it does besides.
package yardstick

import (
	"net/http"
	"strconv"
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

// HeaderCount is how many headers Headers sends (Content-Length included;
// net/http adds Date).
const HeaderCount = len(contractHeaders) + 1

// Headers answers every request with body and the contract's headers.
func Headers(body []byte) http.Handler {
	n := []string{strconv.Itoa(len(body))}
	vals := make([][]string, len(contractHeaders))
	for i, kv := range contractHeaders {
		vals[i] = []string{kv[1]}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for i, kv := range contractHeaders {
			h[kv[0]] = vals[i]
		}
		h["Content-Length"] = n
		w.Write(body)
	})
}

// Mux serves Plain at "/" and Headers at "/headers".
func Mux(body []byte) http.Handler {
	m := http.NewServeMux()
	m.Handle("/", Plain(body))
	m.Handle("/headers", Headers(body))
	return m
}
