package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flagpole/flagpole/bench/procmem"
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
	rssBefore := procmem.Resident(strconv.Itoa(in.cmd.Process.Pid))
	flagsWithout := flagsThroughput(in, key, 5*time.Second)
	host := strings.TrimPrefix(in.base, "http://")
	// The flags the samples vote on. A stream follows them (slug=, at most
	// 100), as an overlay or a dashboard follows the flags it shows: it
	// gets the samples' votes and the background votes that fall on them.
	// With -firehose it follows every flag and gets every vote.
	followed := make([]int, 100)
	var follow []string
	for k := range followed {
		followed[k] = pick(len(ids))
		follow = append(follow, slugs[followed[k]])
	}
	path := "/api/public/stream?slug=" + strings.Join(follow, ",")
	if o.firehose {
		path = "/api/public/stream"
	}
	w := &watch{arrived: make([]atomic.Int64, o.streams)}
	var open atomic.Int64
	var mu sync.Mutex
	var conns []net.Conn
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
			fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", path, host, key)
			r := bufio.NewReaderSize(c, 16<<10)
			status, err := r.ReadString('\n')
			if err != nil || !strings.Contains(status, " 200 ") {
				c.Close()
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			open.Add(1)
			go w.read(r, i)
		}()
	}
	wg.Wait()
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	time.Sleep(3 * time.Second)
	rssOpen := procmem.Resident(strconv.Itoa(in.cmd.Process.Pid))
	flagsWith := flagsThroughput(in, key, 5*time.Second)
	var delays []time.Duration
	const samples = 40
	missed := 0
	for s := 0; s < samples; s++ {
		i := followed[s%len(followed)]
		w.expect(slugs[i])
		if _, err := vote(db, ids[i], "red"); err != nil {
			return err
		}
		committed := time.Now()
		deadline := committed.Add(10 * time.Second)
		for time.Now().Before(deadline) && w.count() < int(open.Load()) {
			time.Sleep(5 * time.Millisecond)
		}
		for k := range w.arrived {
			if t := w.arrived[k].Load(); t > 0 {
				delays = append(delays, time.Unix(0, t).Sub(committed))
			}
		}
		missed += int(open.Load()) - w.count()
		time.Sleep(300 * time.Millisecond)
	}
	ended := 0
	for k := range w.ended {
		if w.ended[k].Load() {
			ended++
		}
	}
	emit(map[string]any{"streams": open.Load(), "firehose": o.firehose, "deliveries": len(delays), "missed": missed, "endedEarly": ended,
		"deliveryP50ms": pct(delays, 50), "deliveryP99ms": pct(delays, 99), "rssBeforeMB": rssBefore >> 20,
		"rssOpenMB": rssOpen >> 20, "bytesPerStream": (rssOpen - rssBefore) / max(open.Load(), 1),
		"flagsReqPerSecWithout": flagsWithout, "flagsReqPerSecWith": flagsWith, "flagsWithOverWithout": flagsWith / flagsWithout})
	return nil
}

// watch notes when each stream brings a votes event naming the slug it
// is told to expect.
type watch struct {
	target  atomic.Pointer[string]
	arrived []atomic.Int64 // Unix ns, 0: not yet
	ended   [1 << 16]atomic.Bool
	n       atomic.Int64
}

func (w *watch) expect(slug string) {
	for k := range w.arrived {
		w.arrived[k].Store(0)
	}
	w.n.Store(0)
	needle := `"slug":"` + slug + `"`
	w.target.Store(&needle)
}

func (w *watch) count() int { return int(w.n.Load()) }

func (w *watch) read(r *bufio.Reader, idx int) {
	event := ""
	inData := false // a long data line arrives in several chunks
	for {
		chunk, err := r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			w.ended[idx%len(w.ended)].Store(true)
			return
		}
		start := !inData
		inData = err == bufio.ErrBufferFull
		switch {
		case start && bytes.HasPrefix(chunk, []byte("event: ")):
			event = string(bytes.TrimSpace(chunk[7:]))
		case event == "votes" && (!start || bytes.HasPrefix(chunk, []byte("data: "))):
			if t := w.target.Load(); t != nil && bytes.Contains(chunk, []byte(*t)) && w.arrived[idx].Load() == 0 {
				w.arrived[idx].Store(time.Now().UnixNano())
				w.n.Add(1)
			}
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
