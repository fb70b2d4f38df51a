package loadertest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Exchange writes req, a raw HTTP/1.1 request, on a new connection to addr
// from the local address from ("" for any) and reads one answer whole: for
// what a client library would not send (a malformed line, a huge head,
// OPTIONS *). The connection stays open until the test ends, so a test
// can hold it.
func Exchange(tb testing.TB, from, addr, req string) (*http.Response, []byte) {
	tb.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c, req); err != nil {
		tb.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		tb.Fatalf("%.60q: %v", req, err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatalf("%.60q: body: %v", req, err)
	}
	return res, body
}
