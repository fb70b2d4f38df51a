// Command hostile measures what hostile traffic does to other clients of a
// running flagpole serve (issue 10, items 3 and 4):
//
//	hostile -mode flood -base http://127.0.0.1:28080 -key KEY [-dur 15s]
//	hostile -mode idle  -base http://127.0.0.1:28080 -key KEY [-conns 6000]
//
// flood: 64 keep-alive connections from 127.0.0.1 send keyless requests as
// fast as they can for -dur, while a client from 127.0.0.2 with a valid
// key sends -rate requests a second; its p50 and p99 are printed, without
// and then with the flood. idle: -conns keep-alive connections from
// 127.0.0.1 make one request each and stay open; then 20 fresh
// connections from 127.0.0.2 ask /healthz and an authenticated /flags,
// each with a 10 s timeout. Output: one JSON object.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	mode := flag.String("mode", "flood", "flood or idle")
	base := flag.String("base", "http://127.0.0.1:28080", "the API")
	key := flag.String("key", "", "a key whose limit is never reached")
	dur := flag.Duration("dur", 15*time.Second, "flood duration")
	rate := flag.Int("rate", 50, "requests a second of the measured client")
	flooders := flag.Int("flooders", 64, "connections of the flood")
	conns := flag.Int("conns", 6000, "idle connections to hold")
	flag.Parse()
	var out any
	switch *mode {
	case "flood":
		out = flood(*base, *key, *dur, *rate, *flooders)
	case "idle":
		out = idle(*base, *key, *conns)
	default:
		fmt.Fprintln(os.Stderr, "mode: flood or idle")
		os.Exit(2)
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

func clientFrom(ip string, timeout time.Duration, keepAlive bool) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: timeout}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: d.DialContext,
		DisableKeepAlives: !keepAlive, MaxIdleConnsPerHost: 256}}
}

func get(c *http.Client, url, key string) (int, error) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

type latencies struct {
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
}

func summarize(ds []time.Duration, errors int) latencies {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	l := latencies{Requests: len(ds), Errors: errors}
	if len(ds) > 0 {
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		l.P50ms, l.P99ms, l.MaxMs = ms(ds[len(ds)/2]), ms(ds[len(ds)*99/100]), ms(ds[len(ds)-1])
	}
	return l
}

// measure sends rate requests a second with the key from 127.0.0.2 until
// ctx ends and returns their latencies.
func measure(ctx context.Context, base, key string, rate int) latencies {
	c := clientFrom("127.0.0.2", 10*time.Second, true)
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	var mu sync.Mutex
	var ds []time.Duration
	errors := 0
	var wg sync.WaitGroup
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return summarize(ds, errors)
		case <-t.C:
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				st, err := get(c, base+"/api/public/flags?limit=20", key)
				d := time.Since(start)
				mu.Lock()
				defer mu.Unlock()
				if err != nil || st != 200 {
					errors++
					return
				}
				ds = append(ds, d)
			}()
		}
	}
}

type floodResult struct {
	Alone        latencies   `json:"alone"`
	DuringFlood  latencies   `json:"during_flood"`
	FloodReqs    int64       `json:"flood_requests"`
	FloodPerSec  float64     `json:"flood_per_second"`
	FloodStatus  map[int]int `json:"flood_statuses"`
	FloodSeconds float64     `json:"flood_seconds"`
}

func flood(base, key string, dur time.Duration, rate, flooders int) floodResult {
	var r floodResult
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	r.Alone = measure(ctx, base, key, rate)
	cancel()
	ctx, cancel = context.WithTimeout(context.Background(), dur)
	defer cancel()
	var n atomic.Int64
	var mu sync.Mutex
	r.FloodStatus = map[int]int{}
	var wg sync.WaitGroup
	c := clientFrom("127.0.0.1", 5*time.Second, true)
	start := time.Now()
	for i := 0; i < flooders; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[int]int{}
			for ctx.Err() == nil {
				st, _ := get(c, base+"/api/public/flags", "")
				local[st]++
				n.Add(1)
			}
			mu.Lock()
			for k, v := range local {
				r.FloodStatus[k] += v
			}
			mu.Unlock()
		}()
	}
	r.DuringFlood = measure(ctx, base, key, rate)
	wg.Wait()
	r.FloodSeconds = time.Since(start).Seconds()
	r.FloodReqs = n.Load()
	r.FloodPerSec = float64(r.FloodReqs) / r.FloodSeconds
	return r
}

type idleResult struct {
	Held      map[int]int `json:"held_statuses"`
	HoldSecs  float64     `json:"hold_seconds"`
	Healthz   latencies   `json:"other_healthz"`
	Flags     latencies   `json:"other_flags"`
	AdminNote string      `json:"note"`
}

func idle(base, key string, n int) idleResult {
	r := idleResult{Held: map[int]int{}, AdminNote: "other_*: 20 fresh connections from 127.0.0.2, 10 s timeout each"}
	addr := base[len("http://"):]
	var mu sync.Mutex
	var held []net.Conn
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	// Many dialers with a short timeout: against a server out of
	// descriptors a connect waits in the full accept queue; the flood must
	// be in place in seconds, not after the server's idle timeout.
	for w := 0; w < 256; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.1")}, Timeout: time.Second}
			for range jobs {
				st := 0
				c, err := d.Dial("tcp", addr)
				if err == nil {
					c.SetDeadline(time.Now().Add(2 * time.Second))
					io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
					if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						st = resp.StatusCode
					}
					c.SetDeadline(time.Time{})
				}
				mu.Lock()
				r.Held[st]++
				if c != nil {
					held = append(held, c)
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
	r.HoldSecs = time.Since(start).Seconds()
	for _, probe := range []struct {
		path string
		into *latencies
	}{{"/healthz", &r.Healthz}, {"/api/public/flags?limit=1", &r.Flags}} {
		var ds []time.Duration
		errors := 0
		for i := 0; i < 20; i++ {
			c := clientFrom("127.0.0.2", 10*time.Second, false)
			t0 := time.Now()
			st, err := get(c, base+probe.path, key)
			if err != nil || st != 200 {
				errors++
				continue
			}
			ds = append(ds, time.Since(t0))
		}
		*probe.into = summarize(ds, errors)
	}
	for _, c := range held {
		c.Close()
	}
	return r
}
