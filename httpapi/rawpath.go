package httpapi

import (
	"net/http"
	"strconv"
	"strings"
)

// serveHTTP routes r as its path is sent (see routes) once the
// percent-encoded unreserved characters in it are decoded: RFC 3986
// (6.2.2.2) makes /api/public/fl%61gs the same as /api/public/flags, and
// %2F and the other reserved characters stay encoded. A path sent without
// a percent sign has no RawPath, and costs one comparison.
func (a *API) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if raw := r.URL.RawPath; raw != "" {
		r.URL.RawPath = decodeUnreserved(raw)
	}
	a.engine.ServeHTTP(w, r)
}

// decodeUnreserved decodes in p each percent-encoded unreserved character
// (ALPHA, DIGIT, "-", ".", "_", "~"), leaving every other escape as sent.
func decodeUnreserved(p string) string {
	i := strings.IndexByte(p, '%')
	if i < 0 {
		return p
	}
	b := make([]byte, 0, len(p))
	for ; i >= 0; i = strings.IndexByte(p, '%') {
		b, p = append(b, p[:i]...), p[i:]
		if len(p) >= 3 {
			if n, err := strconv.ParseUint(p[1:3], 16, 8); err == nil && unreserved(byte(n)) {
				b, p = append(b, byte(n)), p[3:]
				continue
			}
		}
		b, p = append(b, '%'), p[1:]
	}
	return string(append(b, p...))
}

// unreserved reports whether c is an unreserved character of RFC 3986.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
