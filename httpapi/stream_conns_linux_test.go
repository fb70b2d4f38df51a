package httpapi_test

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/connlimit"
)

// A stream's socket gets the TCP user timeout that bounds a vanished
// client (httpapi/stream/acktimeout.go), through the connection bounds'
// and the wire errors' wrappers, which say what they wrap (NetConn).
func TestStreamSocketAckTimeout(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	s, rec := e.boundedStreamAPI(httpapi.Options{}, connlimit.Options{Max: 16})
	e.openStream(s, "/api/public/stream").next(streamWait, "ready")
	rec.mu.Lock()
	conns := append([]net.Conn(nil), rec.accepted...)
	rec.mu.Unlock()
	var got []int
	for _, c := range conns {
		raw, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		raw.Control(func(fd uintptr) {
			v, err := unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		})
	}
	want := int((45 * time.Second).Milliseconds())
	if len(got) != 1 || got[0] != want {
		t.Errorf("TCP user timeouts of the stream's sockets: %v ms, want [%d]", got, want)
	}
}
