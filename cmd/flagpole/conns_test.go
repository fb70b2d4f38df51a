package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// holdIdle opens n keep-alive connections from the local address from to
// addr, each after one GET /healthz, and leaves them open; it returns the
// statuses seen (0: the connection failed) and the connections.
func holdIdle(t *testing.T, from, addr string, n int) (map[int]int, []net.Conn) {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	conns := make([]net.Conn, 0, n)
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
			for range jobs {
				st := 0
				c, err := d.Dial("tcp", addr)
				if err == nil {
					c.SetDeadline(time.Now().Add(10 * time.Second))
					if _, err = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err == nil {
						if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							st = resp.StatusCode
						}
					}
					c.SetDeadline(time.Time{})
				}
				mu.Lock()
				statuses[st]++
				if c != nil {
					conns = append(conns, c)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	return statuses, conns
}

// TestIdleConnectionFlood: 6,000 idle keep-alive connections held from
// 127.0.0.1 against a serve process limited to 4,096 descriptors; another
// address (127.0.0.2) still gets /healthz and an authenticated /flags, the
// flooding address itself gets /healthz, the admin listener still
// answers. With the per-address cap (the default) each connection past
// 256 closes the address's oldest idle one; with the cap off, the total
// bound closes the oldest idle connections to make room.
func TestIdleConnectionFlood(t *testing.T) {
	loadertest.OtherLoopbacks(t)
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is not installed")
	}
	needFiles(t, 7000)
	dbURL := loadertest.URL(t, loader.SQLite)
	mustRun(t, "seed", "--db", dbURL, "--flags", "20", "--users", "5", "--days", "2")
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", dbURL, "--name", "flood", "--limit", "1000"))
	for _, perIP := range []string{"256", "0"} {
		t.Run("max_conns_per_ip="+perIP, func(t *testing.T) {
			p := startProcVia(t, []string{prlimit, "--nofile=4096:4096", "--"}, "--db", dbURL, "--addr", "127.0.0.1:0",
				"--admin-addr", "127.0.0.1:0", "--max-conns-per-ip", perIP, "--access-log=false", "--snapshot-daily=false")
			p.wait(t)
			until(t, "ready", 60*time.Second, func() bool { s, _ := readyz(p.base); return s == 200 })
			addr := strings.TrimPrefix(p.base, "http://")
			statuses, _ := holdIdle(t, "127.0.0.1", addr, 6000)
			t.Logf("6000 connections from 127.0.0.1: statuses %v", statuses)
			if statuses[200] == 0 {
				t.Fatalf("no connection of the flood was served: %v", statuses)
			}
			// Another address, within 2 s each (the client's timeout).
			other := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
				DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}}
			for _, path := range []string{"/healthz", "/api/public/flags?limit=1"} {
				req, _ := http.NewRequest(http.MethodGet, p.base+path, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := other.Do(req)
				if err != nil {
					t.Fatalf("127.0.0.2 %s during the flood: %v", path, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("127.0.0.2 %s during the flood: %d", path, resp.StatusCode)
				}
			}
			// The flooding address, its connections all idle.
			if again, _ := holdIdle(t, "127.0.0.1", addr, 1); again[200] != 1 {
				t.Errorf("127.0.0.1 /healthz beside its own idle connections: %v, want a 200", again)
			}
			admin := &http.Client{Timeout: 2 * time.Second}
			resp, err := admin.Get(p.admin + "/metrics")
			if err != nil {
				t.Fatalf("the admin listener during the flood: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			open, max := metric(string(body), "flagpole_http_open_connections"), metric(string(body), "flagpole_http_max_connections")
			if max <= 0 || max >= 4096 || open > max {
				t.Errorf("open connections %v, bound %v (descriptor limit 4096)", open, max)
			}
			refused, closed := metric(string(body), "flagpole_http_connections_refused_total"),
				metric(string(body), "flagpole_http_idle_connections_closed_total")
			if perIP != "0" && (refused != 0 || statuses[503] != 0 || closed < float64(statuses[200]-256)) {
				t.Errorf("%v connections refused (%d answered 503), %v idle ones closed over the per-address cap of 256 "+
					"with %d served; want none refused, the oldest idle closed", refused, statuses[503], closed, statuses[200])
			}
			if perIP == "0" && closed < 6000-max {
				t.Errorf("%v idle connections closed at the bound of %v, want at least %v", closed, max, 6000-max)
			}
		})
	}
}

// metric reads one unlabelled sample from a Prometheus text page.
func metric(page, name string) float64 {
	for _, l := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}

// TestWireAnswers: the answers written outside any handler, to a
// connection over the per-address cap (its one connection a live stream,
// never idle) and to a request net/http cannot read, are problem+json
// with the CORS headers and a request id, as every answer of the API;
// OPTIONS * is the API's preflight.
func TestWireAnswers(t *testing.T) {
	loadertest.OtherLoopbacks(t)
	dbURL := loadertest.URL(t, loader.SQLite)
	mustRun(t, "seed", "--db", dbURL, "--flags", "5", "--users", "2", "--days", "1")
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", dbURL, "--name", "wire"))
	p := startProc(t, "--db", dbURL, "--addr", "127.0.0.1:0", "--max-conns-per-ip", "1",
		"--access-log=false", "--snapshot-daily=false")
	p.wait(t)
	addr := strings.TrimPrefix(p.base, "http://")
	exchange := func(from, req string) *http.Response {
		t.Helper()
		resp, _ := loadertest.Exchange(t, from, addr, req)
		return resp
	}
	until(t, "ready", 60*time.Second, func() bool { s, _ := readyz(p.base); return s == 200 })
	held := openStream(t, p.base, key, "any") // from 127.0.0.1; stays open, never idle
	busy := exchange("127.0.0.1", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	bad := exchange("127.0.0.2", "GET /api/public/flag/%zz HTTP/1.1\r\nHost: x\r\n\r\n")
	// net/http would answer OPTIONS * itself, a bare 200.
	star := exchange("127.0.0.3", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
	for _, c := range []struct {
		name   string
		resp   *http.Response
		status int
	}{{"held", held, 200}, {"over the cap", busy, 503}, {"malformed", bad, 400}, {"OPTIONS *", star, 204}} {
		h := c.resp.Header
		if c.resp.StatusCode != c.status || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("X-Request-Id") == "" ||
			!strings.Contains(h.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
			t.Errorf("%s: %d (want %d), headers %v", c.name, c.resp.StatusCode, c.status, h)
		}
		if c.status >= 400 && h.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: Content-Type %q", c.name, h.Get("Content-Type"))
		}
	}
}
