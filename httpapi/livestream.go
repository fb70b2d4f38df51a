package httpapi

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/httpapi/connlimit"
	"github.com/flagpole/flagpole/httpapi/stream"
	"github.com/flagpole/flagpole/memstore"
)

// streamRoute is the live stream's route.
const streamRoute = "/api/public/stream"

// newHub makes the live stream's hub of the API's store.
func newHub(opt Options) *stream.Hub {
	return stream.New(opt.Store, stream.Options{Item: appendStreamItem, String: appendString,
		MaxPerKey: opt.MaxStreamsPerKey, MaxStreams: opt.MaxStreams, Heartbeat: opt.StreamHeartbeat,
		WriteTimeout: opt.StreamWriteTimeout, Buffer: opt.StreamBuffer, Metrics: opt.Metrics})
}

// appendStreamItem appends a flag's entry of a votes event: its slug, its
// Votes object as /flag/{slug} has it, and its dominant colour.
func appendStreamItem(b []byte, f *memstore.Flag) []byte {
	b = append(b, `{"slug":`...)
	b = appendString(b, f.Slug())
	b = append(b, `,"votes":`...)
	b = appendVotes(b, f.Red, f.Green)
	b = append(b, `,"dominant":"`...)
	b = append(b, f.Dominant.String()...)
	return append(b, `"}`...)
}

// CloseStreams ends every live stream with an end event (reason shutdown)
// and refuses new ones: http.Server.Shutdown waits for active requests,
// so register it with RegisterOnShutdown.
func (a *API) CloseStreams() { a.hub.Close() }

// Streams is the number of live streams open.
func (a *API) Streams() int { return a.hub.Len() }

// StreamStats are the live stream hub's counts now.
func (a *API) StreamStats() stream.Stats { return a.hub.Stats() }

// StreamsEnded is the number of live streams ended for reason so far
// (revoked, shutdown, too_slow, gone, write).
func (a *API) StreamsEnded(reason string) int { return a.hub.Ended(reason) }

// Header values of a stream (never modified once set).
var (
	eventStreamValue = []string{"text/event-stream; charset=utf-8"}
	streamCacheValue = []string{"no-cache"}
	noValue          = []string{"no"}
	closeValue       = []string{"close"}
)

// liveStream answers GET /api/public/stream, after auth has spent one
// request of the key's budget: Server-Sent Events until the client goes
// or the hub ends the stream. HEAD answers the same headers and opens
// nothing.
func (a *API) liveStream(c *gin.Context) {
	if a.store.Snapshot() == nil {
		c.Header("Retry-After", "1")
		a.writeProblem(c, &Problem{Code: CodeUnavailable, Detail: "the first data load has not finished; try again in a moment"})
		return
	}
	p, err := queryParams(c.Request.URL.RawQuery, streamNames)
	if err != nil {
		a.writeProblem(c, err)
		return
	}
	var follow *stream.Follow
	if raw, ok := p.get("slug"); ok {
		if follow, err = stream.ParseFollow(raw); err != nil {
			a.writeProblem(c, invalidParam("slug", "%s", err.Error()))
			return
		}
	}
	last := c.Request.Header.Get("Last-Event-ID")
	if last == "" {
		last, _ = p.get("lastEventId")
	}
	key, why := identify(c, a.store.Keys()) // auth admitted it; the keys may have changed since
	if why != authOK {
		a.refuseStream(c, stream.ErrRevoked)
		return
	}
	if !hijackable(c.Writer) {
		a.writeProblem(c, errors.New("the live stream needs a connection of its own (HTTP/1.x)"))
		return
	}
	st, err := a.hub.Open(key.ID, follow, last)
	if err != nil {
		a.refuseStream(c, err)
		return
	}
	// The connection bounds keep a reserve that streams cannot take, for
	// health probes and ordinary requests (see Streams in
	// httpapi/connlimit/streams.go).
	if !connlimit.Claim(c.Request.Context()) {
		st.Close()
		a.refuseStream(c, stream.ErrFull)
		return
	}
	h := c.Writer.Header()
	h["Content-Type"] = eventStreamValue
	h["Cache-Control"] = streamCacheValue
	h["X-Accel-Buffering"] = noValue
	// A stream is the connection's last response: its end is bounded by a
	// short write deadline, which must not carry over to a next request.
	h["Connection"] = closeValue
	c.Status(http.StatusOK)
	c.Writer.WriteHeaderNow()
	if c.Request.Method == http.MethodHead {
		st.Close()
		return
	}
	// The hub takes the connection over: net/http's buffers, its goroutine
	// and the handler's go, so an open stream costs a few KB (see
	// httpapi/stream). Hijack writes the head first.
	conn, _, err := c.Writer.Hijack()
	if err != nil {
		st.Close()
		a.log.Warn("live stream: hijack", "err", err)
		return
	}
	st.Start(conn, c.Request.ProtoAtLeast(1, 1))
}

// hijackable reports whether the connection under w can be taken over:
// net/http's HTTP/1.x connections can (gin's writer panics on one that
// cannot).
func hijackable(w gin.ResponseWriter) bool {
	u, ok := w.(interface{ Unwrap() http.ResponseWriter })
	if !ok {
		return false
	}
	_, ok = u.Unwrap().(http.Hijacker)
	return ok
}

// refuseStream answers a stream the hub would not open.
func (a *API) refuseStream(c *gin.Context, err error) {
	switch {
	case errors.Is(err, stream.ErrKeyBusy):
		c.Header("Retry-After", "5")
		a.writeProblem(c, &Problem{Code: CodeRateLimited, Detail: "this key holds the most live streams it may " +
			"have open at once; close one, or follow several flags in one stream with slug=a,b,c"})
	case errors.Is(err, stream.ErrRevoked):
		c.Header("WWW-Authenticate", `Bearer realm="public-api", error="invalid_token"`)
		a.writeProblem(c, &Problem{Code: CodeUnauthorized, Detail: "the API key is unknown or has been revoked"})
	case errors.Is(err, stream.ErrClosed):
		c.Header("Retry-After", "1")
		a.writeProblem(c, &Problem{Code: CodeUnavailable, Detail: "the server is stopping; reconnect in a moment"})
	default:
		c.Header("Retry-After", "5")
		a.writeProblem(c, &Problem{Code: CodeUnavailable, Detail: "the server holds the most live streams it may; try again in a moment"})
	}
}
