package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

func ready(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ready", flag.ExitOnError)
	u := fs.String("url", "", "URL that answers 200 when ready")
	startNS := fs.Int64("start-ns", 0, "Unix nanoseconds the measured process started at")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up after this long")
	full := fs.Bool("full", false, "after the 200, wait until the body's snapshot.trendsLoaded is no longer false")
	fs.Parse(args)
	start := time.Unix(0, *startNS)
	if *startNS == 0 {
		start = time.Now()
	}
	since := func() float64 { return float64(time.Since(start).Microseconds()) / 1000 }
	deadline := time.Now().Add(*timeout)
	out := map[string]any{}
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		resp, err := client.Get(*u)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				if _, ok := out["ms"]; !ok {
					out["ms"] = since()
				}
				if !*full {
					emit(out)
					return nil
				}
				var r struct {
					Snapshot map[string]any `json:"snapshot"`
				}
				json.Unmarshal(body, &r)
				if loaded, ok := r.Snapshot["trendsLoaded"].(bool); !ok || loaded {
					out["full_ms"] = since()
					out["trendsLoadedField"] = ok
					emit(out)
					return nil
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready after %s", *u, *timeout)
}

func ticks(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ticks", flag.ExitOnError)
	u := fs.String("url", "", "the /readyz URL")
	duration := fs.Duration("duration", 10*time.Second, "how long to sample")
	every := fs.Duration("every", 100*time.Millisecond, "sampling interval")
	fs.Parse(args)
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	var gens []float64
	var loads []float64
	var last float64 = -1
	extra := map[string]any{}
	for ctx.Err() == nil {
		var r struct {
			Snapshot map[string]any `json:"snapshot"`
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", *u, nil)
		if resp, err := client.Do(req); err == nil {
			json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if g, ok := r.Snapshot["generation"].(float64); ok && g != last {
				if last >= 0 {
					gens = append(gens, g)
					if ms, ok := r.Snapshot["lastLoadMs"].(float64); ok {
						loads = append(loads, ms)
					}
					for k, v := range r.Snapshot {
						if strings.HasPrefix(k, "lastLoad") && k != "lastLoadMs" {
							extra[k] = v
						}
					}
				}
				last = g
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(*every):
		}
	}
	sorted := slices.Clone(loads)
	slices.Sort(sorted)
	emit(map[string]any{"swaps": len(gens), "loadMs": loads, "p50_ms": pct(sorted, 50), "max_ms": pct(sorted, 100),
		"lastDetail": extra})
	return nil
}

// metrics reads a Prometheus text page and prints the samples bench/run
// uses, keyed by name and labels as written.
func metrics(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("metrics", flag.ExitOnError)
	u := fs.String("url", "", "the /metrics URL")
	fs.Parse(args)
	req, err := http.NewRequestWithContext(ctx, "GET", *u, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	out := map[string]float64{}
	if resp.StatusCode == http.StatusOK {
		for _, line := range strings.Split(string(body), "\n") {
			if line == "" || line[0] == '#' {
				continue
			}
			i := strings.LastIndexByte(line, ' ')
			if i < 0 {
				continue
			}
			name := line[:i]
			if !strings.HasPrefix(name, "flagpole_load") && !strings.HasPrefix(name, "flagpole_snapshot") &&
				!strings.HasPrefix(name, "go_memstats_alloc_bytes_total") && !strings.HasPrefix(name, "go_memstats_mallocs_total") &&
				!strings.HasPrefix(name, "flagpole_response_cache") && !strings.HasPrefix(name, "flagpole_ratelimit") &&
				!strings.HasPrefix(name, "flagpole_http_requests_total") && !strings.HasPrefix(name, "process_cpu_seconds_total") {
				continue
			}
			if strings.Contains(name, "_bucket{") {
				continue
			}
			var v float64
			if _, err := fmt.Sscan(line[i+1:], &v); err == nil {
				out[name] = v
			}
		}
	}
	emit(out)
	return nil
}
