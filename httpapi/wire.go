package httpapi

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxHeaderBytes is the http.Server setting that bounds a request's line
// and header fields together at 32 KiB: net/http reads 4 KiB past it.
const MaxHeaderBytes = 28 << 10

// WireErrors wraps the API's listener so that the answers net/http writes
// by itself, before a request reaches the API's handler, are like every
// other error: problem+json, with the CORS headers and an X-Request-Id.
// net/http answers so when it cannot read a request: a request line, URL
// or header line it cannot parse, or a missing or malformed Host (400);
// a request line and header fields past the server's MaxHeaderBytes
// (431); a transfer coding it does not know (501); an HTTP major version
// it does not speak (505). It writes each answer in one Write of a fixed
// form: the status line, then exactly plainHead, then a short text. No
// answer of a handler has that form (net/http writes a handler's headers
// sorted, so Connection before Content-Type, and Date among them), so the
// connection knows it by its bytes and writes the problem in its place.
// net/http also refuses an Expect other than 100-continue with a bare
// 417, a status no handler of the API answers: that one is replaced too.
// Then net/http closes the connection. The access log does not see these
// requests: they never reach the handler.
func WireErrors(ln net.Listener) net.Listener { return wireListener{ln} }

type wireListener struct{ net.Listener }

func (l wireListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return wireConn{c}, nil
}

// wireConn is an accepted connection whose net/http error answers are
// replaced.
type wireConn struct{ net.Conn }

// NetConn is the connection c wraps (the live stream sets its socket's
// TCP options through it).
func (c wireConn) NetConn() net.Conn { return c.Conn }

// CloseWrite half-closes the connection when it can: net/http does so
// after a 431, so the client reads the answer before the connection ends
// (the rest of its oversized request unread).
func (c wireConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// WriteBuffers writes bufs in one call where the connection can (a TCP
// socket's writev): connlimit sends an answer's held first part and its
// rest so (see Holding in httpapi/connlimit/hold.go). The answers it
// joins are the API's own, never net/http's plain ones that Write
// replaces.
func (c wireConn) WriteBuffers(bufs *net.Buffers) (int64, error) { return bufs.WriteTo(c.Conn) }

func (c wireConn) Write(b []byte) (int, error) {
	if status, text, ok := plainAnswer(b); ok {
		// b is taken whole either way: a failed replacement is not tried
		// again with b (which would send a second answer after part of
		// the first).
		_, err := c.Conn.Write(wireAnswer(status, wireProblem(status, text), ""))
		return len(b), err
	}
	return c.Conn.Write(b)
}

// plainHead is what follows the status line of net/http's own answers.
const plainHead = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// plainAnswer reads one of net/http's own answers: its status and text.
func plainAnswer(b []byte) (status int, text string, ok bool) {
	const proto = "HTTP/1.1 "
	if len(b) < len(proto)+4 || string(b[:len(proto)]) != proto {
		return 0, "", false
	}
	if string(b[len(proto):len(proto)+4]) == "417 " {
		return http.StatusExpectationFailed, "", true
	}
	end := bytes.IndexByte(b, '\r')
	if end < 0 || !bytes.HasPrefix(b[end:], []byte(plainHead)) {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(b[len(proto) : len(proto)+3]))
	if err != nil {
		return 0, "", false
	}
	return status, string(b[end+len(plainHead):]), true
}

// wireProblem is the problem for one of net/http's own answers: what the
// request got wrong, from the status and net/http's text ("400 Bad
// Request: missing required Host header").
func wireProblem(status int, text string) *Problem {
	_, why, _ := strings.Cut(text, ": ")
	p := &Problem{Code: CodeInvalidParameter, Param: "request"}
	switch {
	case status == http.StatusRequestHeaderFieldsTooLarge:
		p.Param, p.Detail = "header", "the request line and header fields are too large"
	case status == http.StatusNotImplemented:
		p.Param, p.Detail = "Transfer-Encoding", "the request's Transfer-Encoding is not supported"
	case status == http.StatusHTTPVersionNotSupported:
		p.Param, p.Detail = "HTTP-version", "the request's HTTP version is not supported: send HTTP/1.1 or HTTP/1.0"
	case status == http.StatusExpectationFailed:
		p.Param, p.Detail = "Expect", "the request's Expect is not supported: only 100-continue is"
	case strings.Contains(why, "Host"):
		p.Param, p.Detail = "Host", "the request could not be read: "+why
	case strings.Contains(why, "header"):
		p.Param, p.Detail = "header", "the request could not be read: "+why
	case why != "":
		p.Detail = "the request could not be read: " + why
	default:
		p.Detail = "the request could not be read as HTTP: its request line, target or a header line is malformed"
	}
	return p
}

// Busy is the answer to a connection refused over the connection bounds,
// before any request: 503, problem+json, with the headers every answer
// carries. The connection is closed after it.
func Busy() []byte {
	p := &Problem{Code: CodeUnavailable, Detail: "too many open connections; try again in a moment"}
	return wireAnswer(http.StatusServiceUnavailable, p, "Retry-After: 1\r\n")
}

// wireAnswer is a whole HTTP/1.1 answer of p written outside any handler,
// with a new request id, closing the connection; extra is more header
// lines, each ending in CRLF.
func wireAnswer(status int, p *Problem, extra string) []byte {
	id := newRequestID()
	body := appendProblem(make([]byte, 0, 256), status, p, id)
	b := make([]byte, 0, 512+len(body))
	b = append(b, "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = append(b, http.StatusText(status)...)
	b = append(b, "\r\nAccess-Control-Allow-Origin: *\r\nAccess-Control-Expose-Headers: "...)
	b = append(b, exposeHeaders...)
	b = append(b, "\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\nContent-Type: application/problem+json\r\nDate: "...)
	b = time.Now().UTC().AppendFormat(b, http.TimeFormat)
	b = append(b, "\r\n"...)
	b = append(b, extra...)
	b = append(b, "X-Request-Id: "...)
	b = append(b, id...)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}
