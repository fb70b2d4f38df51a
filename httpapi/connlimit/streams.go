package connlimit

import (
	"context"
	"net"
)

// Streams. A live stream holds its connection for as long as its client
// follows it: the connection is never idle, so the bounds never close it
// to make room. Were streams let take every connection, the bound would
// refuse everything else, health probes included (ten streams on
// --max-conns 10 made /healthz answer 503). So streams have a share of
// their own, Options.Streams (three quarters of Max unless set): a handler
// claims its request's connection before it turns it into a stream
// (Claim), the claim is refused once the share is taken, and a claimed
// connection counts under the share until it is closed. The rest of Max
// is left to health probes and ordinary requests, whose idle connections
// the bounds close to make room as before.
//
// A handler reaches its connection through the request's context, which
// the server fills with ConnContext: without it (a server that does not
// set it, a test server over another listener) nothing is claimed and
// nothing refused.

// connKey is the context key of a request's connection.
type connKey struct{}

// StreamShare is the default of Options.Streams: three quarters of max,
// rounded down, so that at least a quarter of the connections stay for
// everything that is not a stream.
func StreamShare(max int) int { return max * 3 / 4 }

// ConnContext is the http.Server hook that lets a handler claim its
// request's connection (Claim): set it as the server's ConnContext.
func (l *Listener) ConnContext(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*conn); ok && c.l == l {
		return context.WithValue(ctx, connKey{}, c)
	}
	return ctx
}

// Claim counts the connection of the request of ctx as a stream's until
// it is closed, and reports whether the listener's share of streams had
// room for it; when it had none, the caller refuses the stream. Claiming
// a connection twice counts it once. A request whose connection the
// server did not put in the context (see ConnContext) is not bounded
// here: Claim reports true.
func Claim(ctx context.Context) bool {
	c, _ := ctx.Value(connKey{}).(*conn)
	if c == nil {
		return true
	}
	return c.l.claim(c)
}

func (l *Listener) claim(c *conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.claimed || c.released {
		return true // counted already, or closed: its stream ends at once
	}
	if l.streams >= l.opt.Streams {
		l.refusedStreams.Add(1)
		return false
	}
	c.claimed = true
	l.streams++
	return true
}
