package httpapi_test

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/flagpole/flagpole/httpapi"
)

// An open stream costs the server a few KB: no goroutine of its own
// besides the one that notices its client leaving, no net/http buffers,
// no queue while idle. Measured as the growth of the live heap and of the
// goroutine stacks with 400 streams open over loopback, against a bound
// well above what a stream costs (about 4 KB) and well below what a
// stream served by its handler's goroutine cost (about 36 KB: two
// goroutines, one with a 16 KB stack, and 10 KB of net/http buffers).
// The clients are connections read once up to the ready event, which
// cost this process a few hundred bytes each.
func TestStreamMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 400 streams")
	}
	const n, bound = 400, 12 << 10
	e := newEnv(t, "sqlite", fixtureLines())
	s := e.streamAPI(httpapi.Options{MaxStreamsPerKey: n + 1})
	u, _ := url.Parse(s.srv.URL)
	request := []byte(fmt.Sprintf("GET /api/public/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", e.key))
	open := func() net.Conn {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(streamWait))
		defer c.SetDeadline(time.Time{})
		if _, err := c.Write(request); err != nil {
			t.Fatal(err)
		}
		var buf [4 << 10]byte
		got := 0
		for !bytes.Contains(buf[:got], []byte("event: ready\ndata: {}\n\n")) {
			m, err := c.Read(buf[got:])
			if err != nil || got+m == len(buf) {
				t.Fatalf("opening a stream: %q %v", buf[:got+m], err)
			}
			got += m
		}
		return c
	}
	open() // the first stream starts what every stream shares
	before := liveBytes()
	for range n {
		open()
	}
	waitFor(t, func() bool { return s.api.Streams() == n+1 })
	per := (liveBytes() - before) / n
	t.Logf("%d bytes of heap and stacks per open stream", per)
	if per > bound {
		t.Errorf("an open stream costs %d bytes of heap and stacks, over %d", per, bound)
	}
}

// liveBytes is the live heap and the goroutine stacks after a collection.
func liveBytes() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc + ms.StackInuse)
}
