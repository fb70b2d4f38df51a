package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/memstore"
)

// ctxKeyID is where the access log finds the id of the request's key (set
// only when the access log is on: the gin context's map costs an
// allocation per request).
const ctxKeyID = "flagpole.key_id"

// recoverer turns a panic into a 500 problem, never a dropped connection.
func (a *API) recoverer(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			a.writeProblem(c, fmt.Errorf("panic: %v", v))
		}
	}()
	c.Next()
}

// requestID echoes a sane incoming X-Request-Id or makes a new one: this
// process's random prefix and a counter, unique without a system call.
func (a *API) requestID(c *gin.Context) {
	c.Writer.Header()["X-Request-Id"] = answerID(c.Request.Header["X-Request-Id"])
	c.Next()
}

// RequestID is h with requestID's X-Request-Id on every answer, for the
// handlers outside the API's engine (the admin listener's).
func RequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Request-Id"] = answerID(r.Header["X-Request-Id"])
		h.ServeHTTP(w, r)
	})
}

// answerID is the X-Request-Id value answering a request's: its first, if
// sane, else a new one.
func answerID(sent []string) []string {
	if len(sent) == 0 || !saneRequestID(sent[0]) {
		return newRequestIDValue()
	}
	return sent[:1]
}

// requestIDOf is the request id requestID answered with.
func requestIDOf(c *gin.Context) string {
	if v := c.Writer.Header()["X-Request-Id"]; len(v) > 0 {
		return v[0]
	}
	return ""
}

var (
	idPrefix = func() string {
		var b [8]byte
		rand.Read(b[:])
		return hex.EncodeToString(b[:]) + "-"
	}()
	idSeq atomic.Uint64
)

// newRequestID is a request id this process has not given before: the
// prefix and the counter in hex.
func newRequestID() string { return newRequestIDValue()[0] }

// newRequestIDValue is a new request id as a header's value, made in one
// allocation: the value's slice and the id's bytes, which the id's string
// then shares (they are never written again).
func newRequestIDValue() []string {
	box := new(struct {
		v   [1]string
		buf [40]byte
	})
	b := appendHex(append(box.buf[:0], idPrefix...), idSeq.Add(1))
	box.v[0] = unsafe.String(unsafe.SliceData(b), len(b))
	return box.v[:]
}

// appendHex appends n in lower-case hex, without leading zeros.
func appendHex(b []byte, n uint64) []byte { return strconv.AppendUint(b, n, 16) }

func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_.:+/=~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// accessLog writes one line per request: request id, key id (never the
// key), client address, route, status and duration. Refusals of keyless
// traffic past the first few per address and minute are counted instead
// (see admitAnon), so a flood writes a bounded amount.
func (a *API) accessLog(c *gin.Context) {
	log := a.accessLogger()
	if log == nil {
		c.Next()
		return
	}
	start := time.Now()
	c.Next()
	if c.Writer.Status() == http.StatusTooManyRequests && c.GetString(ctxKeyID) == "" {
		return // a keyless refusal: sampled and counted by admitAnon
	}
	log.Info("request",
		"request_id", requestIDOf(c), "key_id", c.GetString(ctxKeyID), "client", a.clientAddr(c.Request).String(),
		"method", c.Request.Method, "route", c.FullPath(), "path", c.Request.URL.Path,
		"status", c.Writer.Status(), "bytes", c.Writer.Size(), "duration_ms",
		float64(time.Since(start).Microseconds())/1000)
}

// auth admits a request whose Authorization header carries an active key
// and spends one request of the key's budget: it sets the rate-limit
// headers on every authenticated response and refuses with 429 when the
// budget of the rolling minute is spent.
func (a *API) auth(c *gin.Context) {
	tm := a.startTiming(c)
	key, ok := a.authenticate(c)
	tm.authDone()
	if ok && a.spend(c, key) {
		tm.limiterDone()
		c.Next()
	}
}

// authFailure is why a request has no valid key.
type authFailure int

const (
	authOK authFailure = iota
	authMissing
	authScheme
	authUnknown
	authDuplicate
)

// identify finds the request's active key.
func identify(c *gin.Context, keys *memstore.KeySet) (memstore.Key, authFailure) {
	h := c.Request.Header["Authorization"]
	switch {
	case len(h) > 1:
		return memstore.Key{}, authDuplicate
	case len(h) == 0 || h[0] == "":
		return memstore.Key{}, authMissing
	}
	token, ok := bearer(h[0])
	if !ok {
		return memstore.Key{}, authScheme
	}
	key, ok := keys.Lookup(token)
	if !ok {
		return memstore.Key{}, authUnknown
	}
	return key, authOK
}

// authenticate returns the request's active key, or answers the request
// (503 before the keys are loaded, 400 for two Authorization headers, 401
// otherwise; 429 when the client address has spent its keyless budget)
// and returns false.
func (a *API) authenticate(c *gin.Context) (memstore.Key, bool) {
	keys := a.store.Keys()
	if keys == nil {
		c.Header("Retry-After", "1")
		a.writeProblem(c, &Problem{Code: CodeUnavailable, Detail: "the service is starting; try again in a moment"})
		return memstore.Key{}, false
	}
	key, why := identify(c, keys)
	if why == authOK {
		a.noteKey(c, key)
		return key, true
	}
	if !a.admitAnon(c) {
		return memstore.Key{}, false
	}
	const challenge = `Bearer realm="public-api"`
	switch why {
	case authDuplicate:
		a.writeProblem(c, invalidParam("Authorization",
			"send one Authorization header; this request has %d", len(c.Request.Header["Authorization"])))
	case authMissing:
		c.Header("WWW-Authenticate", challenge)
		a.writeProblem(c, &Problem{Code: CodeUnauthorized,
			Detail: "an API key is required: send Authorization: Bearer <key>"})
	case authScheme:
		c.Header("WWW-Authenticate", challenge)
		a.writeProblem(c, &Problem{Code: CodeUnauthorized,
			Detail: "the Authorization header must be Bearer followed by an API key"})
	default:
		c.Header("WWW-Authenticate", challenge+`, error="invalid_token"`)
		a.writeProblem(c, &Problem{Code: CodeUnauthorized, Detail: "the API key is unknown or has been revoked"})
	}
	return memstore.Key{}, false
}

// noteKey records the request's key for the access log.
func (a *API) noteKey(c *gin.Context, key memstore.Key) {
	if a.accessLogger() != nil {
		c.Set(ctxKeyID, key.ID)
	}
}

// bearer returns the key of an Authorization header, and whether the
// header is the Bearer scheme (any case) followed by a key.
func bearer(header string) (string, bool) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(header), " ")
	token = strings.TrimSpace(token)
	return token, strings.EqualFold(scheme, "Bearer") && token != ""
}

// chargeRequest counts a request to an unknown path or with an unknown
// method against its key, when it carries an active one (every
// authenticated request counts, whatever its status), or against its
// client address when it does not. It reports whether the caller should
// go on answering (false: 429 already written).
func (a *API) chargeRequest(c *gin.Context) bool {
	keys := a.store.Keys()
	if keys == nil {
		return true
	}
	key, why := identify(c, keys)
	if why != authOK {
		return a.admitAnon(c)
	}
	a.noteKey(c, key)
	return a.spend(c, key)
}

// spend takes one request from the key's budget (its own limit, or the
// service's) and sets the rate-limit headers; over the budget it writes
// the 429 and returns false.
func (a *API) spend(c *gin.Context, key memstore.Key) bool {
	limit := key.Limit
	if limit <= 0 {
		limit = a.rateLimitNow()
	}
	now := a.now()
	d, err := a.limiter.Allow(c.Request.Context(), key.ID, limit, now)
	if err != nil {
		a.writeProblem(c, err)
		return false
	}
	reset, left := resetOf(d, now)
	setRateHeaders(c.Writer.Header(), d.Limit, d.Remaining, reset, left)
	if !d.Allowed {
		h := c.Writer.Header()
		wait := max(int64(math.Ceil(d.RetryAfter(now).Seconds())), 1)
		h.Set("Retry-After", strconv.FormatInt(wait, 10))
		a.writeProblem(c, &Problem{Code: CodeRateLimited, Detail: fmt.Sprintf(
			"this key may make %d requests in any 60 seconds; try again in %d s", d.Limit, wait)})
		return false
	}
	return true
}

// setRateHeaders sets X-RateLimit-Limit, -Remaining and -Reset, and the
// IETF draft's RateLimit-Policy and RateLimit. The five values are cut from
// one string, and their slices from one array, both made in one
// allocation (the string shares the bytes, never written again).
func setRateHeaders(h http.Header, limit, remaining int, reset, left int64) {
	box := new(struct {
		v   [5]string
		buf [160]byte // five numbers of at most 20 digits and 32 bytes of text
	})
	var end [5]int
	b := strconv.AppendInt(box.buf[:0], int64(limit), 10)
	end[0] = len(b)
	b = strconv.AppendInt(b, int64(remaining), 10)
	end[1] = len(b)
	b = strconv.AppendInt(b, reset, 10)
	end[2] = len(b)
	b = append(b, `"per-key";q=`...)
	b = append(b, b[:end[0]]...)
	b = append(b, ";w=60"...)
	end[3] = len(b)
	b = append(b, `"per-key";r=`...)
	b = append(b, b[end[0]:end[1]]...)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, left, 10)
	end[4] = len(b)
	text := unsafe.String(unsafe.SliceData(b), len(b))
	v := &box.v
	start := 0
	for i, e := range end {
		v[i] = text[start:e]
		start = e
	}
	h["X-Ratelimit-Limit"] = v[0:1:1]
	h["X-Ratelimit-Remaining"] = v[1:2:2]
	h["X-Ratelimit-Reset"] = v[2:3:3]
	h["Ratelimit-Policy"] = v[3:4:4]
	h["Ratelimit"] = v[4:5:5]
}
