package micro_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/bench/procmem"
	"github.com/flagpole/flagpole/httpapi"
	"github.com/flagpole/flagpole/httpapi/connlimit"
	"github.com/flagpole/flagpole/memstore"
)

// BenchmarkStreams opens N live streams over loopback TCP against the API
// served as `flagpole serve` serves it (the connection bounds, the
// server's timeouts), each following every flag, and then, once per
// iteration, swaps in a snapshot that changes one flag's votes and waits
// until every stream has read its votes event. The clients run in a child
// process (this test binary again), so that the memory measured is the
// server's alone:
//
//	go test ./bench/micro -run '^$' -bench Streams -benchtime 20x
//
// It reports, per open stream, the growth of the live heap (heapB/stream),
// of goroutine stacks (stackB/stream) and of the resident memory
// (rssB/stream), and the fan-out delay from the swap to each client's read
// of the event over every delivery: p50-ms, p99-ms; ns/op is the swap to
// the last stream's read, and cpu-ms/event the server's CPU time (user
// and system) per swap, the figure that other work on the machine moves
// least. FLAGPOLE_STREAM_PROFILE=dir writes the heap and
// goroutine profiles with the streams open.
func BenchmarkStreams(b *testing.B) {
	for _, n := range []int{2000, 10000} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) { benchStreams(b, n) })
	}
}

// streamFlags is the size of the streams' data set: what it is matters
// little, every event names one flag.
const streamFlags = 1000

func benchStreams(b *testing.B, n int) {
	if err := raiseNoFile(uint64(n) + 512); err != nil {
		b.Skipf("%d streams need as many open files (here and in the child): %v", n, err)
	}
	in := make([]memstore.FlagInput, streamFlags)
	for i := range in {
		in[i] = memstore.FlagInput{ID: fmt.Sprintf("f%05d", i), Slug: fmt.Sprintf("flag-%05d", i), Approved: true,
			Category: "SOCIAL", Text: [memstore.NumLangs]string{"a", "b", "c", "d"}, Red: 1}
	}
	snap, err := memstore.Build(nil, memstore.Change{Full: true, Flags: in, LoadedAt: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	st := &memstore.Store{}
	st.SetSnapshot(snap)
	st.SetKeys(memstore.NewKeySet([][32]byte{sha256.Sum256([]byte(secret))},
		[]memstore.Key{{ID: "bench", Limit: 1 << 30}}, time.Now()))
	api, err := httpapi.New(httpapi.Options{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		MaxStreamsPerKey: n, MaxStreams: n})
	if err != nil {
		b.Fatal(err)
	}
	defer api.Close()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ln := connlimit.Wrap(httpapi.WireErrors(tcp), connlimit.Options{Max: n + 64, Busy: httpapi.Busy})
	// The defaults of serve's settings.
	srv := &http.Server{Handler: api.Handler(), ConnState: ln.ConnState, ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second,
		MaxHeaderBytes: httpapi.MaxHeaderBytes}
	srv.RegisterOnShutdown(api.CloseStreams)
	go srv.Serve(ln)
	defer srv.Close()

	heap0, stack0, rss0 := memNow()
	child := startStreamClients(b, tcp.Addr().String(), n)
	defer child.stop()
	if open := api.Streams(); open != n {
		b.Fatalf("%d streams open, want %d", open, n)
	}
	time.Sleep(time.Second) // what the opening left behind settles
	_, _, rss1 := memNow()
	heap1, stack1, _ := memNow()
	if dir := os.Getenv("FLAGPOLE_STREAM_PROFILE"); dir != "" {
		writeProfiles(b, dir, n)
	}

	var delays []time.Duration
	gen := 0
	cpu0 := cpuTime()
	for b.Loop() {
		in[gen%len(in)].Red++
		next, err := memstore.Build(st.Snapshot(), memstore.Change{Flags: in[gen%len(in) : gen%len(in)+1],
			LoadedAt: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
		gen++
		t0 := time.Now()
		st.SetSnapshot(next)
		d := child.wait(b, t0)
		delays = append(delays, d...)
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	slices.Sort(delays)
	pct := func(p int) float64 {
		if len(delays) == 0 {
			return 0
		}
		return float64(delays[(len(delays)-1)*p/100]) / 1e6
	}
	b.ReportMetric(float64(heap1-heap0)/float64(n), "heapB/stream")
	b.ReportMetric(float64(stack1-stack0)/float64(n), "stackB/stream")
	b.ReportMetric(float64(rss1-rss0)/float64(n), "rssB/stream")
	b.ReportMetric(float64(cpu)/1e6/float64(max(gen, 1)), "cpu-ms/event")
	b.ReportMetric(pct(50), "p50-ms")
	b.ReportMetric(pct(99), "p99-ms")
}

// memNow is the live heap and the goroutine stacks after a collection,
// and the resident memory, in bytes.
func memNow() (heap, stack, rss int64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc), int64(ms.StackInuse), procmem.Resident("self")
}

func writeProfiles(b *testing.B, dir string, n int) {
	for _, name := range []string{"heap", "goroutine"} {
		f, err := os.Create(fmt.Sprintf("%s/streams-%d.%s.pprof", dir, n, name))
		if err != nil {
			b.Fatal(err)
		}
		pprof.Lookup(name).WriteTo(f, 0)
		f.Close()
	}
}

// streamClients is the child process holding the streams open: it is
// told each swap's time on its standard input and answers, once every
// stream has read the swap's event, each stream's delay since, in ns, on
// one line.
type streamClients struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

const streamClientsEnv = "FLAGPOLE_BENCH_STREAM_CLIENTS"

func startStreamClients(b *testing.B, addr string, n int) *streamClients {
	cmd := exec.Command(os.Args[0], "-test.run=^TestStreamClients$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%s", streamClientsEnv, addr, n, secret))
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &streamClients{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	line, err := c.out.ReadString('\n')
	if !strings.HasPrefix(line, "open ") {
		c.stop()
		b.Fatalf("the clients: %q %v", line, err)
	}
	if got, _ := strconv.Atoi(strings.TrimSpace(line[5:])); got != n {
		c.stop()
		b.Fatalf("the clients opened %d streams of %d", got, n)
	}
	return c
}

// wait tells the child the swap's time and returns its delays.
func (c *streamClients) wait(b *testing.B, t0 time.Time) []time.Duration {
	fmt.Fprintf(c.in, "%d\n", t0.UnixNano())
	line, err := c.out.ReadString('\n')
	if err != nil {
		b.Fatalf("the clients: %v", err)
	}
	if strings.HasPrefix(line, "missing") {
		b.Fatalf("the clients: %s", line)
	}
	f := strings.Fields(line)
	out := make([]time.Duration, len(f))
	for i, s := range f {
		ns, _ := strconv.ParseInt(s, 10, 64)
		out[i] = time.Duration(ns)
	}
	return out
}

func (c *streamClients) stop() {
	c.in.Close()
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

// TestStreamClients is BenchmarkStreams' child process; run by itself it
// does nothing.
func TestStreamClients(t *testing.T) {
	spec := os.Getenv(streamClientsEnv)
	if spec == "" {
		t.Skip("the child process of BenchmarkStreams")
	}
	parts := strings.SplitN(spec, ",", 3)
	addr, key := parts[0], parts[2]
	n, _ := strconv.Atoi(parts[1])
	if err := raiseNoFile(uint64(n) + 512); err != nil {
		fmt.Println("open 0:", err)
		return
	}
	const maxEvents = 1 << 16
	var counts [maxEvents]atomic.Int32 // streams that read each votes event
	type reader struct {
		mu    sync.Mutex
		times []int64 // when it read each votes event, in Unix ns
	}
	readers := make([]reader, n)
	var opened atomic.Int64
	var openWG sync.WaitGroup
	sem := make(chan struct{}, 64) // dials at once
	for i := 0; i < n; i++ {
		openWG.Add(1)
		sem <- struct{}{}
		go func() {
			c, r := openStreamConn(addr, key)
			openWG.Done()
			<-sem
			if c == nil {
				return
			}
			opened.Add(1)
			event := false
			for k := 0; ; {
				line, err := r.ReadSlice('\n')
				if err != nil && err != bufio.ErrBufferFull {
					return
				}
				switch {
				case bytes.HasPrefix(line, []byte("event: votes")):
					event = true
				case event && len(line) == 1 && line[0] == '\n':
					event = false
					now := time.Now().UnixNano()
					readers[i].mu.Lock()
					readers[i].times = append(readers[i].times, now)
					readers[i].mu.Unlock()
					if k < maxEvents {
						counts[k].Add(1)
					}
					k++
				}
			}
		}()
	}
	openWG.Wait()
	fmt.Printf("open %d\n", opened.Load())
	want := int32(opened.Load())
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	for k := 0; in.Scan() && k < maxEvents; k++ {
		t0, _ := strconv.ParseInt(in.Text(), 10, 64)
		deadline := time.Now().Add(30 * time.Second)
		for counts[k].Load() < want && time.Now().Before(deadline) {
			time.Sleep(200 * time.Microsecond)
		}
		if got := counts[k].Load(); got < want {
			fmt.Fprintf(out, "missing: %d of %d streams read event %d\n", want-got, want, k)
			out.Flush()
			return
		}
		for i := range readers {
			r := &readers[i]
			r.mu.Lock()
			if len(r.times) > k {
				out.WriteString(strconv.FormatInt(r.times[k]-t0, 10))
				out.WriteByte(' ')
			}
			r.mu.Unlock()
		}
		out.WriteByte('\n')
		out.Flush()
	}
}

// openStreamConn opens a stream of every flag with key and reads its
// opening up to the ready event; nil when that fails.
func openStreamConn(addr, key string) (net.Conn, *bufio.Reader) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		return nil, nil
	}
	fmt.Fprintf(c, "GET /api/public/stream HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer %s\r\n\r\n", key)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReaderSize(c, 4<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			fmt.Fprintln(os.Stderr, "opening:", err)
			c.Close()
			return nil, nil
		}
		if bytes.HasPrefix(line, []byte("event: ready")) {
			c.SetReadDeadline(time.Time{})
			return c, r
		}
	}
}
