package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// TestMain lets the test binary run as the flagpole command, so tests can
// start real `flagpole serve` processes without building anything.
func TestMain(m *testing.M) {
	if os.Getenv("FLAGPOLE_TEST_EXEC_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// proc is a `flagpole serve` process.
type proc struct {
	cmd   *exec.Cmd
	addr  chan [2]string
	base  string
	admin string
}

func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	return startProcVia(t, nil, args...)
}

// startProcVia starts `flagpole serve args` through the command wrap (for
// example prlimit with its options), or directly when wrap is empty.
func startProcVia(t *testing.T, wrap []string, args ...string) *proc {
	t.Helper()
	argv := append(append(append([]string{}, wrap...), os.Args[0], "serve"), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	// Stopped by the cleanup's SIGINT, which is not a terminal's: without
	// a shutdown_delay of 0 every process would serve on for the default
	// one first. A test of the delay sets --shutdown-delay, which wins.
	cmd.Env = append(append([]string{"FLAGPOLE_SHUTDOWN_DELAY=0"}, os.Environ()...), "FLAGPOLE_TEST_EXEC_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, addr: make(chan [2]string, 1)}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				var admin string
				if a := adminAddr.FindStringSubmatch(sc.Text()); a != nil {
					admin = a[1]
				}
				p.addr <- [2]string{m[1], admin}
				sent = true
			}
		}
		if !sent {
			close(p.addr)
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Error("a serve process did not stop within 20 s of SIGINT")
		}
	})
	return p
}

func (p *proc) wait(t *testing.T) {
	t.Helper()
	select {
	case a, ok := <-p.addr:
		if !ok {
			t.Fatal("serve exited before listening")
		}
		p.base, p.admin = "http://"+a[0], "http://"+a[1]
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not listen within 60 s")
	}
}

// readyz returns /readyz's status and decoded body.
func readyz(base string) (int, map[string]any) {
	c := &http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(base + "/readyz")
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func until(t *testing.T, what string, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var adminAddr = regexp.MustCompile(`"admin_addr":"([^"]+)"`)

func redisPrefix() string {
	var b [6]byte
	rand.Read(b[:])
	return "flagpole-test-" + hex.EncodeToString(b[:]) + ":"
}

// TestCluster starts three serve processes at once on one fresh
// PostgreSQL database and one Redis: they migrate it once, all become
// ready, and share one budget per key: of 200 concurrent requests with one
// key spread over the three, exactly 60 succeed.
func TestCluster(t *testing.T) {
	redisURL := loadertest.RedisURL(t)
	dbURL := loadertest.URL(t, loader.Postgres) // created, not migrated
	prefix := redisPrefix()
	var procs []*proc
	for i := 0; i < 3; i++ {
		// A generous Redis timeout: this test is about sharing, not about the
		// fallback a busy machine would trigger (faults_test.go covers that).
		procs = append(procs, startProc(t, "--db", dbURL, "--redis", redisURL, "--redis-prefix", prefix, "--redis-timeout", "2s",
			"--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--refresh", "@every 1s", "--key-refresh", "@every 1s",
			"--access-log=false", "--snapshot-daily=false"))
	}
	for _, p := range procs {
		p.wait(t)
	}
	for _, p := range procs {
		until(t, p.base+" ready", 60*time.Second, func() bool { s, _ := readyz(p.base); return s == 200 })
	}
	ctx := context.Background()
	db, err := loader.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var applied int
	if err := db.Get(&applied, "SELECT count(*) FROM goose_db_version WHERE version_id = 1"); err != nil || applied != 1 {
		t.Fatalf("migration 1 recorded %d times (%v), want once", applied, err)
	}
	key, _, err := db.CreateKey(ctx, "cluster", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	hot, _, err := db.CreateKey(ctx, "cluster-hot", "", 640)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		until(t, p.base+" loads the keys", 20*time.Second, func() bool {
			_, m := readyz(p.admin)
			k, _ := m["keys"].(map[string]any)
			return k != nil && k["count"] == 2.0
		})
	}

	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	start := make(chan struct{})
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			req, _ := http.NewRequest(http.MethodGet, procs[i%3].base+"/api/public/stats", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch resp.StatusCode {
			case 200:
				ok.Add(1)
			case 429:
				limited.Add(1)
				if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 {
					t.Errorf("429 with Retry-After %q", resp.Header.Get("Retry-After"))
				}
			default:
				t.Errorf("status %d", resp.StatusCode)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	if ok.Load() != 60 || limited.Load() != 140 {
		t.Fatalf("%d succeeded and %d were limited, want exactly 60 and 140", ok.Load(), limited.Load())
	}
	t.Run("leases", func(t *testing.T) { clusterLeases(t, procs, hot, client) })
}

// clusterLeases: a key of 640 a minute asked by 48 clients across three
// instances at once is served partly from leases of its budget, never
// past its limit; once the leases' unspent slots are back (a lease lasts
// 250 ms), the instances have served it exactly 640.
func clusterLeases(t *testing.T, procs []*proc, key string, client *http.Client) {
	status := func(p *proc) int {
		req, _ := http.NewRequest(http.MethodGet, p.base+"/api/public/stats", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	var ok atomic.Int64
	var wg sync.WaitGroup
	for g := range 48 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 { // 1,200 requests in all
				switch st := status(procs[g%3]); st {
				case 200:
					ok.Add(1)
				case 429:
				default:
					t.Errorf("status %d", st)
					return
				}
			}
		}()
	}
	wg.Wait()
	if ok.Load() > 640 {
		t.Fatalf("%d of 1,200 succeeded, over the limit of 640", ok.Load())
	}
	leased := 0.0
	for _, p := range procs {
		_, body := get(t, p.admin+"/metrics", "")
		leased += metricValue(t, string(body), "flagpole_ratelimit_leased_total", "")
	}
	if leased == 0 {
		t.Error("no request was served from a lease")
	}
	t.Logf("%d of 1,200 succeeded at once, %v of them from leases", ok.Load(), leased)
	deadline := time.Now().Add(10 * time.Second)
	for ok.Load() < 640 && time.Now().Before(deadline) {
		if status(procs[0]) == 200 {
			ok.Add(1)
		} else {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if ok.Load() != 640 {
		t.Fatalf("%d served in all, want exactly 640", ok.Load())
	}
	for _, p := range procs {
		if st := status(p); st != 429 {
			t.Errorf("%s: the 641st request answered %d", p.base, st)
		}
	}
}
