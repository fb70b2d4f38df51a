package micro_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/bench/yardstick"
	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/memstore"
)

// The BenchmarkConn* benchmarks answer requests through net/http's own
// server over in-memory connections: the whole server side of a request
// (parsing, routing, middleware, the response headers' clone, sort and
// write, the flush) without the kernel's socket work, which is the same
// for any server. BenchmarkConnCeiling is the yardstick: the plain
// net/http handler of bench/ceiling returning the default /flags page.

// numKeys is how many keys the requests rotate over, as bench/run's do.
const numKeys = 300

// connAPI serves the data set as `flagpole serve` does, with numKeys keys.
func connAPI(b *testing.B) (http.Handler, []string) {
	d := data(b)
	st := &memstore.Store{}
	st.SetSnapshot(d.snap)
	secrets := make([]string, numKeys)
	hashes := make([][32]byte, numKeys)
	keys := make([]memstore.Key, numKeys)
	for i := range secrets {
		secrets[i] = fmt.Sprintf("grf_bench%024d", i)
		hashes[i] = sha256.Sum256([]byte(secrets[i]))
		keys[i] = memstore.Key{ID: "bench" + strconv.Itoa(i), Limit: 1 << 30}
	}
	st.SetKeys(memstore.NewKeySet(hashes, keys, time.Now()))
	a, err := httpapi.New(httpapi.Options{Store: st, CacheBytes: 64 << 20,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(a.Close)
	return a.Handler(), secrets
}

// serveConns answers b.N requests, paths and keys in turn, over one
// pipelined in-memory connection per GOMAXPROCS, and fails unless every
// answer is a 200.
func serveConns(b *testing.B, h http.Handler, paths, keys []string) {
	n := max(len(paths), len(keys))
	reqs := make([][]byte, n)
	for i := range reqs {
		r := "GET " + paths[i%len(paths)] + " HTTP/1.1\r\nHost: 127.0.0.1:28080\r\nUser-Agent: wrk\r\n"
		if len(keys) > 0 {
			r += "Authorization: Bearer " + keys[i%len(keys)] + "\r\n"
		}
		reqs[i] = []byte(r + "\r\n")
	}
	// A request the test can see answered, before the clock starts.
	if ok := runConns(h, reqs, []int{1}); ok != 1 {
		b.Fatalf("%s: not a 200", reqs[0])
	}
	procs := runtime.GOMAXPROCS(0)
	counts := make([]int, procs)
	for i := range counts {
		counts[i] = b.N / procs
	}
	counts[0] += b.N % procs
	runtime.GC() // the data set's garbage is not this benchmark's work
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	ok := runConns(h, reqs, counts)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	if ok != b.N {
		b.Fatalf("%d of %d answers were 200", ok, b.N)
	}
}

// runConns serves one connection per count, each sending that many
// requests, and returns how many answers were 200.
func runConns(h http.Handler, reqs [][]byte, counts []int) int {
	ln := &memListener{conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: h, ErrorLog: nil}
	go srv.Serve(ln)
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i, n := range counts {
		c := &memConn{reqs: reqs, next: i * 7919, left: n, ok: &ok, closed: make(chan struct{})}
		wg.Add(1)
		go func() { <-c.closed; wg.Done() }()
		ln.conns <- c
	}
	wg.Wait()
	srv.Close()
	return int(ok.Load())
}

type memListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *memListener) Addr() net.Addr { return memAddr }

var memAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 28080}

// memConn sends left requests, taken in turn from reqs, and counts the
// answers that start with a 200 status line (net/http flushes each
// response, so each starts a write).
type memConn struct {
	reqs   [][]byte
	next   int
	cur    []byte
	left   int
	ok     *atomic.Int64
	once   sync.Once
	closed chan struct{}
}

var status200 = []byte("HTTP/1.1 200 OK\r\n")

func (c *memConn) Read(p []byte) (int, error) {
	if len(c.cur) == 0 {
		if c.left == 0 {
			return 0, io.EOF
		}
		c.left--
		c.cur = c.reqs[c.next%len(c.reqs)]
		c.next++
	}
	n := copy(p, c.cur)
	c.cur = c.cur[n:]
	return n, nil
}

func (c *memConn) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, status200) {
		c.ok.Add(1)
	}
	return len(p), nil
}

func (c *memConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *memConn) LocalAddr() net.Addr              { return memAddr }
func (c *memConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000} }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

// defaultPage is the body of /api/public/flags.
func defaultPage(b *testing.B, h http.Handler, key string) []byte {
	var out []byte
	runConnsCapture(h, "/api/public/flags", key, &out)
	if !bytes.HasPrefix(out, status200) {
		b.Fatalf("/api/public/flags: %.200s", out)
	}
	_, body, _ := bytes.Cut(out, []byte("\r\n\r\n"))
	return body
}

// runConnsCapture answers one request and keeps the raw response.
func runConnsCapture(h http.Handler, path, key string, out *[]byte) {
	c := &captureConn{req: []byte("GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key + "\r\n\r\n"),
		memConn: memConn{closed: make(chan struct{})}}
	ln := &memListener{conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	ln.conns <- c
	<-c.closed
	srv.Close()
	*out = c.out.Bytes()
}

type captureConn struct {
	memConn
	req []byte
	out bytes.Buffer
}

func (c *captureConn) Read(p []byte) (int, error) {
	if len(c.req) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.req)
	c.req = c.req[n:]
	return n, nil
}

func (c *captureConn) Write(p []byte) (int, error) { return c.out.Write(p) }

func BenchmarkConnCeiling(b *testing.B) {
	h, keys := connAPI(b)
	serveConns(b, yardstick.Plain(defaultPage(b, h, keys[0])), []string{"/"}, keys)
}

func BenchmarkConnFlags(b *testing.B) {
	h, keys := connAPI(b)
	serveConns(b, h, []string{"/api/public/flags"}, keys)
}

func BenchmarkConnFlagsRotating(b *testing.B) {
	h, keys := connAPI(b)
	serveConns(b, h, flagsPaths(), keys)
}

func BenchmarkConnFlag(b *testing.B) {
	h, keys := connAPI(b)
	d := data(b)
	paths := make([]string, 0, 1000)
	for i := range 1000 {
		paths = append(paths, "/api/public/flag/"+d.slugs[i*97%len(d.slugs)])
	}
	serveConns(b, h, paths, keys)
}

func BenchmarkConnSearch(b *testing.B) {
	h, keys := connAPI(b)
	serveConns(b, h, searchPaths(b), keys)
}

func BenchmarkConnCeilingHeaders(b *testing.B) {
	h, keys := connAPI(b)
	serveConns(b, yardstick.Headers(defaultPage(b, h, keys[0])), []string{"/"}, keys)
}

func BenchmarkConnTrend(b *testing.B) {
	h, keys := connAPI(b)
	d := data(b)
	paths := make([]string, 0, 1000)
	for i := range 1000 {
		paths = append(paths, "/api/public/flag/"+d.slugs[i*97%len(d.slugs)]+"/trend?days=90")
	}
	serveConns(b, h, paths, keys)
}
