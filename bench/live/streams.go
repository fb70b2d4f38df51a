package main

import (
	"bufio"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func hashHex(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// measureStreams opens o.streams live streams on in (every flag followed),
// then times votes from their commit to their arrival on every stream,
// and the instance's memory before and after, and /flags' throughput with
// the streams open against without.
func measureStreams(o opts, db *sql.DB, in *instance, key string, ids, slugs []string) error {
	rssBefore := rss(in)
	flagsWithout := flagsThroughput(in, key, 5*time.Second)
	host := strings.TrimPrefix(in.base, "http://")
	var arrivals sync.Map // slug -> *sync.Map of stream index -> time
	var open atomic.Int64
	conns := make([]net.Conn, 0, o.streams)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := 0; i < o.streams; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := net.DialTimeout("tcp", host, 10*time.Second)
			if err != nil {
				return
			}
			fmt.Fprintf(c, "GET /api/public/stream HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n\r\n", host, key)
			r := bufio.NewReaderSize(c, 4096)
			status, err := r.ReadString('\n')
			if err != nil || !strings.Contains(status, " 200 ") {
				c.Close()
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			open.Add(1)
			go readStream(r, i, &arrivals)
		}()
	}
	wg.Wait()
	runtime.GC()
	time.Sleep(2 * time.Second)
	rssOpen := rss(in)
	flagsWith := flagsThroughput(in, key, 5*time.Second)
	var delays []time.Duration
	const samples = 50
	for s := 0; s < samples; s++ {
		i := pick(len(ids))
		if _, err := vote(db, ids[i], "red"); err != nil {
			return err
		}
		committed := time.Now()
		deadline := committed.Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if m, ok := arrivals.Load(slugs[i]); ok && count(m.(*sync.Map)) >= int(open.Load()) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if m, ok := arrivals.Load(slugs[i]); ok {
			m.(*sync.Map).Range(func(_, v any) bool {
				if t := v.(time.Time); t.After(committed) {
					delays = append(delays, t.Sub(committed))
				}
				return true
			})
			arrivals.Delete(slugs[i])
		}
		time.Sleep(200 * time.Millisecond)
	}
	emit(map[string]any{"streams": open.Load(), "deliveries": len(delays), "deliveryP50ms": pct(delays, 50),
		"deliveryP99ms": pct(delays, 99), "rssBeforeMB": rssBefore >> 20, "rssOpenMB": rssOpen >> 20,
		"bytesPerStream":        (rssOpen - rssBefore) / max(open.Load(), 1),
		"flagsReqPerSecWithout": flagsWithout, "flagsReqPerSecWith": flagsWith, "flagsWithOverWithout": flagsWith / flagsWithout})
	for _, c := range conns {
		c.Close()
	}
	return nil
}

func count(m *sync.Map) int {
	n := 0
	m.Range(func(_, _ any) bool { n++; return true })
	return n
}

// readStream notes, for each votes event, when it arrived, by slug.
func readStream(r *bufio.Reader, idx int, arrivals *sync.Map) {
	event := ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:") && event == "votes":
			now := time.Now()
			var ev struct {
				Flags []struct{ Slug string } `json:"flags"`
			}
			if json.Unmarshal([]byte(strings.TrimSpace(line[5:])), &ev) == nil {
				for _, f := range ev.Flags {
					m, _ := arrivals.LoadOrStore(f.Slug, &sync.Map{})
					m.(*sync.Map).LoadOrStore(idx, now)
				}
			}
		case line == "":
			event = ""
		}
	}
}

// flagsThroughput is /flags' requests a second from 32 connections over d.
func flagsThroughput(in *instance, key string, d time.Duration) float64 {
	var n atomic.Int64
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := 0; c < 32; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				req, _ := http.NewRequest("GET", in.base+"/api/public/flags", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				buf := make([]byte, 32<<10)
				for {
					if _, err := resp.Body.Read(buf); err != nil {
						break
					}
				}
				resp.Body.Close()
				if resp.StatusCode == 200 {
					n.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / d.Seconds()
}

// rss is the resident memory of the instance's process, in bytes.
func rss(in *instance) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", in.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
