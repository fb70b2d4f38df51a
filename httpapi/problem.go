package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"
)

// Error codes of the problem+json body, one per kind of failure.
const (
	CodeInvalidParameter = "invalid_parameter"
	CodeUnauthorized     = "unauthorized"
	CodeNotFound         = "not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeRateLimited      = "rate_limited"
	CodeInternal         = "internal"
	CodeUnavailable      = "unavailable"
)

// statusOf maps each code to its HTTP status: the one table of error kinds.
var statusOf = map[string]int{
	CodeInvalidParameter: http.StatusBadRequest,
	CodeUnauthorized:     http.StatusUnauthorized,
	CodeNotFound:         http.StatusNotFound,
	CodeMethodNotAllowed: http.StatusMethodNotAllowed,
	CodeRateLimited:      http.StatusTooManyRequests,
	CodeInternal:         http.StatusInternalServerError,
	CodeUnavailable:      http.StatusServiceUnavailable,
}

// Problem is an error a client may see: its code, a sentence for people
// and, for invalid_parameter, the parameter at fault.
type Problem struct {
	Code   string
	Detail string
	Param  string
	// Members are more members of the problem object, as JSON without
	// the braces (`"stale":"...","snapshot":{...}`), for a problem that
	// says more than its detail (RFC 9457's extension members).
	Members []byte
}

func (p *Problem) Error() string { return p.Code + ": " + p.Detail }

func invalidParam(param, format string, args ...any) *Problem {
	return &Problem{Code: CodeInvalidParameter, Param: param, Detail: fmt.Sprintf(format, args...)}
}

var errNotFound = &Problem{Code: CodeNotFound, Detail: "no approved flag has this slug"}

// writeProblem answers with err as RFC 9457 problem+json. Anything but a
// *Problem is an internal error whose text is logged, never shown.
func (a *API) writeProblem(c *gin.Context, err error) {
	var p *Problem
	if !errors.As(err, &p) {
		a.log.Error("request failed", "err", err, "path", c.Request.URL.Path, "request_id", requestIDOf(c))
		p = &Problem{Code: CodeInternal, Detail: "the server could not answer this request"}
	}
	status := statusOf[p.Code]
	b := appendProblem(make([]byte, 0, 256), status, p, requestIDOf(c))
	a.timing(c).setHeader(c)
	h := c.Writer.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Del("ETag")
	h.Del("Content-Encoding")
	c.Status(status)
	c.Writer.WriteHeaderNow()
	if c.Request.Method != http.MethodHead {
		c.Writer.Write(b)
	}
	c.Abort()
}

// appendProblem appends p's problem+json body, answered with status, and
// the request's id if it has one.
func appendProblem(b []byte, status int, p *Problem, id string) []byte {
	b = append(b, `{"type":"about:blank","title":`...)
	b = appendString(b, http.StatusText(status))
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"detail":`...)
	b = appendString(b, p.Detail)
	b = append(b, `,"code":"`...)
	b = append(b, p.Code...)
	b = append(b, '"')
	if p.Param != "" {
		b = append(b, `,"param":`...)
		b = appendString(b, p.Param)
	}
	if len(p.Members) > 0 {
		b = append(b, ',')
		b = append(b, p.Members...)
	}
	if id != "" {
		b = append(b, `,"requestId":`...)
		b = appendString(b, id)
	}
	return append(b, '}')
}
