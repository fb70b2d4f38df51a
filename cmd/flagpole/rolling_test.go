package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/flagpole/flagpole/config"
	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// TestRollingRestart: two instances behind HAProxy, which checks GET
// /readyz of each every 500 ms and never retries a request elsewhere.
// Under steady load through HAProxy each instance in turn is sent SIGTERM,
// waited for, and started again on its address. Not one request fails:
// each instance answers 503 on /readyz at once but serves on for its
// default shutdown_delay, so HAProxy takes it out before it stops
// accepting, and the one restarted takes traffic only once ready.
func TestRollingRestart(t *testing.T) {
	dbURL := loadertest.URL(t, loader.SQLite)
	mustRun(t, "seed", "--db", dbURL, "--flags", "20", "--users", "5", "--days", "2")
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", dbURL, "--name", "roll", "--limit", "1000000"))
	def := config.Default()
	start := func(addr string) *proc {
		p := startProc(t, "--db", dbURL, "--addr", addr, "--access-log=false", "--snapshot-daily=false",
			"--shutdown-delay", def.Text("shutdown_delay"))
		p.wait(t)
		until(t, addr+" ready", 60*time.Second, func() bool { s, _ := readyz(p.base); return s == 200 })
		return p
	}
	addrs := map[string]string{"a": freeAddr(t), "b": freeAddr(t)}
	procs := map[string]*proc{"a": start(addrs["a"]), "b": start(addrs["b"])}
	h := startHAProxy(t, addrs)

	var ok, failed atomic.Int64
	var mu sync.Mutex
	var failures []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest(http.MethodGet, h.base+"/api/public/flags?limit=5", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := client.Do(req)
				why := ""
				if err != nil {
					why = err.Error()
				} else {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						why = fmt.Sprintf("%d %s", resp.StatusCode, body)
					}
				}
				if why == "" {
					ok.Add(1)
					continue
				}
				failed.Add(1)
				mu.Lock()
				if len(failures) < 10 {
					failures = append(failures, why)
				}
				mu.Unlock()
			}
		}()
	}
	progress := func(what string) {
		t.Helper()
		from := ok.Load()
		until(t, what, 30*time.Second, func() bool { return ok.Load() >= from+20 })
	}
	progress("requests through haproxy")
	for _, name := range []string{"a", "b"} {
		p := procs[name]
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- p.cmd.Wait() }()
		until(t, "haproxy takes "+name+" out", 30*time.Second, func() bool { return strings.HasPrefix(h.status(name), "DOWN") })
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("%s exited with %v after SIGTERM, want 0", name, err)
			}
		case <-time.After(def.ShutdownDelay + def.ShutdownTimeout + 10*time.Second):
			t.Fatalf("%s did not exit within shutdown_delay + shutdown_timeout of SIGTERM", name)
		}
		progress("requests served while " + name + " is down")
		procs[name] = start(addrs[name])
		h.waitUp(t, name)
		progress("requests served after " + name + " is back")
	}
	close(stop)
	wg.Wait()
	t.Logf("%d requests answered 200 through the rolling restart, %d failed", ok.Load(), failed.Load())
	if n := failed.Load(); n != 0 {
		t.Errorf("%d of %d requests failed during the rolling restart, want 0; the first: %q", n, n+ok.Load(), failures)
	}
}
