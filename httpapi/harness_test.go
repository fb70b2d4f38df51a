package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	"github.com/pb33f/libopenapi-validator/responses"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
	"github.com/flagpole/flagpole/memstore"
)

// env is one API served over real HTTP from a real database.
type env struct {
	t      testing.TB
	source loader.Dialect
	db     *loader.DB
	store  *memstore.Store
	ld     *loader.Loader
	api    *httpapi.API
	srv    *httptest.Server
	key    string // an active key whose limit tests never reach
	clock  *clock
	// noSpec turns off the OpenAPI check, for paths the document cannot
	// describe (unknown ones); the test checks the problem itself.
	noSpec bool
}

// clock is the API's clock: real time unless a test sets it.
type clock struct {
	mu  sync.Mutex
	at  time.Time
	set bool
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set {
		return c.at
	}
	return time.Now()
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at, c.set = t, true
}

// forEachSource runs f against SQLite and, where configured, PostgreSQL,
// each with the fixture flags loaded.
func forEachSource(t *testing.T, lines []string, f func(t *testing.T, e *env)) {
	for _, src := range loadertest.Sources(t) {
		t.Run(string(src), func(t *testing.T) {
			f(t, newEnv(t, src, lines))
		})
	}
}

// newEnv makes a database of kind src, imports lines, loads a snapshot
// and serves the API on a loopback port.
func newEnv(t testing.TB, src loader.Dialect, lines []string) *env {
	t.Helper()
	db, _ := loadertest.Open(t, src)
	e := &env{t: t, source: src, db: db, store: &memstore.Store{}, clock: &clock{}}
	ctx := context.Background()
	if len(lines) > 0 {
		if _, err := db.Import(ctx, strings.NewReader(strings.Join(lines, "\n")), nil); err != nil {
			t.Fatalf("import fixtures: %v", err)
		}
	}
	var err error
	if e.key, _, err = db.CreateKey(ctx, "tests", "", 1_000_000); err != nil {
		t.Fatal(err)
	}
	e.ld = loader.New(db, e.store, loader.Options{})
	e.reload()
	e.api, err = httpapi.New(httpapi.Options{Store: e.store, CacheBytes: 8 << 20, Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(e.api.Handler())
	t.Cleanup(func() { e.api.CloseStreams(); e.srv.Close(); e.api.Close() })
	return e
}

// reload runs one flag load and one key load, as the cron jobs do.
func (e *env) reload() {
	e.t.Helper()
	ctx := context.Background()
	if err := e.ld.LoadFlags(ctx); err != nil {
		e.t.Fatalf("load flags: %v", err)
	}
	if err := e.ld.LoadKeys(ctx); err != nil {
		e.t.Fatalf("load keys: %v", err)
	}
}

// newKey creates a key called name with its own limit a minute (0: the
// service's) and loads the keys; it returns the key and its record.
func (e *env) newKey(name string, limit int) (string, loader.APIKey) {
	e.t.Helper()
	secret, k, err := e.db.CreateKey(context.Background(), name, "", limit)
	if err != nil {
		e.t.Fatal(err)
	}
	e.reload()
	return secret, k
}

// exec runs a writer's statement (with ? placeholders) on the database.
func (e *env) exec(query string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Exec(e.db.Rebind(query), args...); err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
}

// result is one HTTP exchange, its body decoded when it is JSON.
type result struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

// send sends one request with the test key, its headers then changed by
// set, and returns the response with its body open.
func (e *env) send(method, path string, set func(http.Header)) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	set(req.Header)
	resp, err := rawTransport.RoundTrip(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// raw sends one request with exactly the headers given besides the
// test key (an empty value is sent empty, a header may repeat), which
// e.do's "Name: value" strings cannot say, and returns the response with
// its body closed.
func (e *env) raw(method, path string, h http.Header) *http.Response {
	e.t.Helper()
	res := e.send(method, path, func(req http.Header) {
		for k, v := range h {
			req[k] = v
		}
	})
	res.Body.Close()
	return res
}

// rawTransport shows responses as sent: no transparent gzip.
var rawTransport = &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 64}

var (
	specOnce  sync.Once
	spec      validator.Validator
	specModel *libopenapi.DocumentModel[v3.Document]
	specErr   error
)

func openapiValidator(t testing.TB) validator.Validator {
	specOnce.Do(func() {
		doc, err := libopenapi.NewDocument(httpapi.OpenAPIYAML)
		if err != nil {
			specErr = err
			return
		}
		v, errs := validator.NewValidator(doc)
		if len(errs) > 0 {
			specErr = fmt.Errorf("%v", errs)
			return
		}
		spec = v
		if specModel, specErr = doc.BuildV3Model(); specErr != nil {
			return
		}
	})
	if specErr != nil {
		t.Fatalf("openapi.yaml: %v", specErr)
	}
	return spec
}

// do sends a request with the test key (unless headers set Authorization
// themselves; "Authorization: " sends none) and validates the response
// against openapi.yaml.
func (e *env) do(method, path string, headers ...string) result {
	e.t.Helper()
	resp := e.send(method, path, func(req http.Header) {
		for _, h := range headers {
			k, v, _ := strings.Cut(h, ": ")
			if v == "" {
				req.Del(k)
			} else {
				req.Set(k, v)
			}
		}
	})
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := result{status: resp.StatusCode, header: resp.Header, body: body}
	if len(body) > 0 && resp.Header.Get("Content-Encoding") == "" {
		if err := json.Unmarshal(body, &r.json); err != nil {
			e.t.Fatalf("%s %s: body is not a JSON object: %v\n%s", method, path, err, body)
		}
	}
	if !e.noSpec {
		e.validate(resp.Request, resp, body)
	}
	return r
}

// validate checks one response against the OpenAPI document. The
// document lists the GET of each route only: a HEAD is checked as the GET
// it mirrors, its status and headers, with no body; an OPTIONS is a CORS
// preflight, which the document describes in its CORS section for every
// path and cors_test.go checks.
func (e *env) validate(req *http.Request, resp *http.Response, body []byte) {
	e.t.Helper()
	if resp.StatusCode == http.StatusMethodNotAllowed || !strings.HasPrefix(req.URL.Path, "/") {
		return // a method the document does not list has no operation to check against
	}
	if resp.Header.Get("Content-Encoding") != "" || req.Method == http.MethodOptions {
		return
	}
	resp = withTextRequestID(resp)
	var errs []*liberrors.ValidationError
	if req.Method == http.MethodHead {
		if len(body) > 0 {
			e.t.Errorf("HEAD %s -> %d has a body of %d bytes", req.URL, resp.StatusCode, len(body))
		}
		errs = validateHead(e.t, req, resp)
	} else {
		clone := *resp
		clone.Body = io.NopCloser(bytes.NewReader(body))
		_, errs = openapiValidator(e.t).ValidateHttpResponse(req, &clone)
	}
	if len(errs) > 0 {
		var msgs []string
		for _, err := range errs {
			msgs = append(msgs, err.Message+": "+err.Reason)
			for _, sv := range err.SchemaValidationErrors {
				msgs = append(msgs, "  "+sv.Reason+" at "+sv.FieldPath)
			}
		}
		e.t.Errorf("%s %s -> %d does not match openapi.yaml:\n%s\n%s", req.Method, req.URL, resp.StatusCode,
			strings.Join(msgs, "\n"), truncate(body))
	}
}

// withTextRequestID returns resp, or a copy whose X-Request-Id has a
// letter before it when the id reads as a JSON value (42, 1e3, true):
// libopenapi-validator decodes such a header value as JSON before checking
// it against the header's schema, so an echoed id of digits would fail the
// document's `type: string` although it is a string on the wire.
func withTextRequestID(resp *http.Response) *http.Response {
	id := resp.Header.Get("X-Request-Id")
	var v any
	if json.Unmarshal([]byte(id), &v) != nil {
		return resp
	}
	if _, isString := v.(string); isString {
		return resp
	}
	clone := *resp
	clone.Header = resp.Header.Clone()
	clone.Header.Set("X-Request-Id", "id-"+id)
	return &clone
}

// validateHead checks a HEAD's status and headers against the GET of the
// same path: the status must be one the GET documents, with its headers.
func validateHead(t testing.TB, req *http.Request, resp *http.Response) []*liberrors.ValidationError {
	t.Helper()
	openapiValidator(t)
	get := req.Clone(req.Context())
	get.Method = http.MethodGet
	opts := config.NewValidationOptions()
	item, errs, found := paths.FindPath(get, &specModel.Model, opts)
	if len(errs) > 0 {
		return errs
	}
	if item.Get == nil {
		return []*liberrors.ValidationError{{Message: "no GET operation", Reason: "HEAD mirrors a GET the document does not list"}}
	}
	code := strconv.Itoa(resp.StatusCode)
	r := item.Get.Responses.Codes.GetOrZero(code)
	if r == nil {
		return []*liberrors.ValidationError{{Message: "status not documented", Reason: "the GET documents no " + code}}
	}
	if r.Headers == nil {
		return nil
	}
	_, errs = responses.ValidateResponseHeaders(get, resp, r.Headers, found, code, config.WithExistingOpts(opts))
	return errs
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

func (e *env) get(path string, headers ...string) result {
	e.t.Helper()
	return e.do(http.MethodGet, path, headers...)
}

// mustStatus fails unless r has the status; for errors it also checks the
// problem+json shape and code.
func mustStatus(t testing.TB, r result, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d\n%s", r.status, status, truncate(r.body))
	}
	if status >= 400 {
		if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type %q, want application/problem+json", ct)
		}
		if r.json["code"] != code || r.json["status"] != float64(status) || r.json["type"] != "about:blank" {
			t.Errorf("problem %v, want code %q status %d", r.json, code, status)
		}
		if d, _ := r.json["detail"].(string); d == "" {
			t.Errorf("problem without detail: %s", r.body)
		}
	}
}

// data returns the data array of a list response.
func data(t testing.TB, r result) []map[string]any {
	t.Helper()
	raw, ok := r.json["data"].([]any)
	if !ok {
		t.Fatalf("no data array in %s", truncate(r.body))
	}
	out := make([]map[string]any, len(raw))
	for i, x := range raw {
		out[i] = x.(map[string]any)
	}
	return out
}

func slugs(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it["slug"].(string)
	}
	return out
}
