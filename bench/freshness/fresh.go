package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"
)

type flagDetail struct {
	ID    string `json:"id"`
	Slug  string `json:"slug"`
	Votes struct {
		Total int64 `json:"total"`
	} `json:"votes"`
}

func getJSON(ctx context.Context, url, key string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, fmt.Errorf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return resp.StatusCode, json.Unmarshal(body, v)
}

// freshOpts are fresh's settings.
type freshOpts struct {
	base, key               string
	n                       int
	interval, poll, timeout time.Duration
}

func fresh(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fresh", flag.ExitOnError)
	dbURL := fs.String("db", "", "database URL (sqlite:FILE or postgres://...)")
	var o freshOpts
	fs.StringVar(&o.base, "api", "", "API base, e.g. http://127.0.0.1:18080")
	fs.StringVar(&o.key, "key", "", "API key")
	fs.IntVar(&o.n, "n", 50, "votes to time")
	fs.DurationVar(&o.interval, "interval", 370*time.Millisecond, "time between two votes (not a divisor of the refresh, so votes land at every phase of a tick)")
	fs.DurationVar(&o.poll, "poll", 10*time.Millisecond, "time between two polls of a flag")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Second, "give up on a vote after this long")
	fs.Parse(args)
	v, err := newVoter(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer v.db.Close()
	targets, err := pickTargets(ctx, o)
	if err != nil {
		return err
	}
	ms, writeErrs, err := timeVotes(ctx, o, v, targets)
	if err != nil {
		return err
	}
	slices.Sort(ms)
	out := map[string]any{"votes": len(targets), "seen": len(ms), "timeouts": len(targets) - len(ms) - writeErrs,
		"writeErrors": writeErrs, "p50_ms": pct(ms, 50), "p99_ms": pct(ms, 99), "max_ms": pct(ms, 100)}
	emit(out)
	return nil
}

// pickTargets is o.n distinct flags from a few pages of the list.
func pickTargets(ctx context.Context, o freshOpts) ([]flagDetail, error) {
	var targets []flagDetail
	seen := map[string]bool{}
	for page := 0; len(targets) < o.n && page < 50; page++ {
		var list struct {
			Data []flagDetail `json:"data"`
		}
		if _, err := getJSON(ctx, fmt.Sprintf("%s/api/public/flags?sort=newest&limit=100&offset=%d", o.base, page*100), o.key, &list); err != nil {
			return nil, err
		}
		if len(list.Data) == 0 {
			break
		}
		for _, f := range list.Data {
			if !seen[f.ID] && len(targets) < o.n {
				seen[f.ID] = true
				targets = append(targets, f)
			}
		}
	}
	if len(targets) == 0 {
		return nil, errors.New("no flag to vote on")
	}
	return targets, nil
}

// timeVotes votes on each target, one every o.interval, and returns the
// delays (ms) after which the API showed each vote, of the votes it
// showed within o.timeout, and how many votes could not be written.
func timeVotes(ctx context.Context, o freshOpts, v *voter, targets []flagDetail) (ms []float64, writeErrs int, err error) {
	type result struct {
		ms float64
		ok bool
	}
	results := make([]result, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, 0, ctx.Err()
			case <-time.After(o.interval):
			}
		}
		var before flagDetail
		if _, err := getJSON(ctx, o.base+"/api/public/flag/"+t.Slug, o.key, &before); err != nil {
			return nil, 0, err
		}
		err := v.vote(ctx, t.ID, "green")
		wrote := time.Now()
		if err != nil {
			writeErrs++
			continue
		}
		wg.Go(func() {
			for time.Since(wrote) < o.timeout {
				var now flagDetail
				if _, err := getJSON(ctx, o.base+"/api/public/flag/"+t.Slug, o.key, &now); err == nil && now.Votes.Total != before.Votes.Total {
					results[i] = result{ms: float64(time.Since(wrote).Microseconds()) / 1000, ok: true}
					return
				}
				time.Sleep(o.poll)
			}
		})
	}
	wg.Wait()
	for _, r := range results {
		if r.ok {
			ms = append(ms, r.ms)
		}
	}
	return ms, writeErrs, nil
}

// pct is the nearest-rank percentile of sorted xs, nil when empty.
func pct(xs []float64, p float64) any {
	if len(xs) == 0 {
		return nil
	}
	i := int(float64(len(xs))*p/100+0.999999) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}
