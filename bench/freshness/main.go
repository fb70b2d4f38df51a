// Command freshness is bench/run's helper for what wrk cannot measure. It
// talks to the database only through the statements of the contract (the
// voting application's INSERTs) and to the API over HTTP.
//
//	freshness ready  -url URL -start-ns N [-timeout D] [-full]
//	    polls URL until it answers 200; prints {"ms": time since start-ns};
//	    with -full, also waits for snapshot.trendsLoaded (full_ms)
//	freshness writer -db URL [-rate N] [-duration D]
//	    inserts votes (INSERT INTO votes (flag_id, user_id, color) VALUES
//	    (?, ?, ?)) at N per second on random approved flags until killed or
//	    until D has passed; prints {"votes": n, "errors": n}
//	freshness fresh  -db URL -api BASE -key KEY [-n 50] [-interval D] [-poll D]
//	    writes n votes, one every interval on a different flag, and polls
//	    /flag/{slug} until its total moves; prints the delays' p50/p99
//	freshness ticks  -url READYZ [-duration D]
//	    samples /readyz and reports each new snapshot's lastLoadMs
//	freshness metrics -url METRICS
//	    prints the load, snapshot and allocation samples of /metrics as JSON
//	freshness pgdb   create|drop|comment|finish|prune -url POSTGRES_URL ...
//	    manages the run's databases (and the cached seed) next to URL's
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/lib/pq"
	_ "modernc.org/sqlite"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: freshness ready|writer|fresh|ticks [flags]"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "ready":
		err = ready(ctx, os.Args[2:])
	case "writer":
		err = writer(ctx, os.Args[2:])
	case "fresh":
		err = fresh(ctx, os.Args[2:])
	case "ticks":
		err = ticks(ctx, os.Args[2:])
	case "metrics":
		err = metrics(ctx, os.Args[2:])
	case "pgdb":
		err = pgdb(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "freshness:", err)
	os.Exit(1)
}

func emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

var client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 128}}

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

// db opens sqlite:FILE or postgres://...; bind turns ? into $n for
// PostgreSQL.
func open(raw string) (*sql.DB, func(string) string, error) {
	if path, ok := strings.CutPrefix(raw, "sqlite:"); ok {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)")
		if err != nil {
			return nil, nil, err
		}
		db.SetMaxOpenConns(1)
		return db, func(q string) string { return q }, nil
	}
	db, err := sql.Open("postgres", raw)
	if err != nil {
		return nil, nil, err
	}
	bind := func(q string) string {
		var b strings.Builder
		n := 0
		for _, c := range q {
			if c == '?' {
				n++
				fmt.Fprintf(&b, "$%d", n)
				continue
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	return db, bind, nil
}

// voter writes contract votes: each from a user of its own on flags it has
// not voted on, so that every INSERT adds one vote.
type voter struct {
	db    *sql.DB
	bind  func(string) string
	run   string
	users int
	user  string
	voted map[string]bool
}

func newVoter(ctx context.Context, dbURL string) (*voter, error) {
	db, bind, err := open(dbURL)
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		return nil, err
	}
	return &voter{db: db, bind: bind, run: fmt.Sprintf("bench_%08x", rand.Uint32())}, nil
}

func (v *voter) newUser(ctx context.Context) error {
	v.users++
	v.user = fmt.Sprintf("%s_%d", v.run, v.users)
	v.voted = map[string]bool{}
	_, err := v.db.ExecContext(ctx, v.bind("INSERT INTO users (id) VALUES (?)"), v.user)
	return err
}

func (v *voter) vote(ctx context.Context, flagID, color string) error {
	if v.user == "" || v.voted[flagID] || len(v.voted) >= 5000 {
		if err := v.newUser(ctx); err != nil {
			return fmt.Errorf("insert user: %w", err)
		}
	}
	v.voted[flagID] = true
	_, err := v.db.ExecContext(ctx, v.bind("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)"), flagID, v.user, color)
	return err
}

func (v *voter) approvedIDs(ctx context.Context, n int) ([]string, error) {
	rows, err := v.db.QueryContext(ctx, v.bind("SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT ?"), n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func writer(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("writer", flag.ExitOnError)
	dbURL := fs.String("db", "", "database URL (sqlite:FILE or postgres://...)")
	rate := fs.Float64("rate", 20, "votes per second")
	duration := fs.Duration("duration", 0, "stop after this long (0: when killed)")
	fs.Parse(args)
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	v, err := newVoter(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer v.db.Close()
	ids, err := v.approvedIDs(ctx, 20000)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return errors.New("no approved flag to vote on")
	}
	tick := time.NewTicker(time.Duration(float64(time.Second) / *rate))
	defer tick.Stop()
	var n, errs int
	var lastErr string
	for {
		select {
		case <-ctx.Done():
			out := map[string]any{"votes": n, "errors": errs}
			if lastErr != "" {
				out["lastError"] = lastErr
			}
			emit(out)
			return nil
		case <-tick.C:
		}
		color := "red"
		if rand.IntN(2) == 0 {
			color = "green"
		}
		if err := v.vote(ctx, ids[rand.IntN(len(ids))], color); err != nil {
			if ctx.Err() == nil {
				errs++
				lastErr = err.Error()
			}
			continue
		}
		n++
	}
}

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

func fresh(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fresh", flag.ExitOnError)
	dbURL := fs.String("db", "", "database URL (sqlite:FILE or postgres://...)")
	base := fs.String("api", "", "API base, e.g. http://127.0.0.1:18080")
	key := fs.String("key", "", "API key")
	n := fs.Int("n", 50, "votes to time")
	interval := fs.Duration("interval", 370*time.Millisecond, "time between two votes (not a divisor of the refresh, so votes land at every phase of a tick)")
	poll := fs.Duration("poll", 10*time.Millisecond, "time between two polls of a flag")
	timeout := fs.Duration("timeout", 20*time.Second, "give up on a vote after this long")
	fs.Parse(args)
	v, err := newVoter(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer v.db.Close()

	// Distinct flags from a few pages of the list.
	var targets []flagDetail
	seen := map[string]bool{}
	for page := 0; len(targets) < *n && page < 50; page++ {
		var list struct {
			Data []flagDetail `json:"data"`
		}
		if _, err := getJSON(ctx, fmt.Sprintf("%s/api/public/flags?sort=newest&limit=100&offset=%d", *base, page*100), *key, &list); err != nil {
			return err
		}
		if len(list.Data) == 0 {
			break
		}
		for _, f := range list.Data {
			if !seen[f.ID] && len(targets) < *n {
				seen[f.ID] = true
				targets = append(targets, f)
			}
		}
	}
	if len(targets) == 0 {
		return errors.New("no flag to vote on")
	}

	type result struct {
		ms float64
		ok bool
	}
	results := make([]result, len(targets))
	var wg sync.WaitGroup
	var mu sync.Mutex // the voter's connection and state
	var writeErrs int
	for i, t := range targets {
		if i > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(*interval):
			}
		}
		var before flagDetail
		if _, err := getJSON(ctx, *base+"/api/public/flag/"+t.Slug, *key, &before); err != nil {
			return err
		}
		mu.Lock()
		err := v.vote(ctx, t.ID, "green")
		mu.Unlock()
		wrote := time.Now()
		if err != nil {
			writeErrs++
			continue
		}
		wg.Add(1)
		go func(i int, slug string, total int64) {
			defer wg.Done()
			for time.Since(wrote) < *timeout {
				var now flagDetail
				if _, err := getJSON(ctx, *base+"/api/public/flag/"+slug, *key, &now); err == nil && now.Votes.Total != total {
					results[i] = result{ms: float64(time.Since(wrote).Microseconds()) / 1000, ok: true}
					return
				}
				time.Sleep(*poll)
			}
		}(i, t.Slug, before.Votes.Total)
	}
	wg.Wait()
	var ms []float64
	for _, r := range results {
		if r.ok {
			ms = append(ms, r.ms)
		}
	}
	slices.Sort(ms)
	out := map[string]any{"votes": len(targets), "seen": len(ms), "timeouts": len(targets) - len(ms) - writeErrs,
		"writeErrors": writeErrs, "p50_ms": pct(ms, 50), "p99_ms": pct(ms, 99), "max_ms": pct(ms, 100)}
	emit(out)
	return nil
}

// pct is the nearest-rank percentile of sorted xs, nil when empty.
func pct(xs []float64, p float64) any {
	if len(xs) == 0 {
		return nil
	}
	i := int(float64(len(xs))*p/100+0.999999) - 1
	return xs[min(max(i, 0), len(xs)-1)]
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

var dbName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// pgdb manages the run's databases on the server of -url:
//
//	create -name N [-template T]  create N (a copy of T), print its URL
//	drop -name N                  drop N, forcing its connections out
//	comment -name N               print N's comment; exit 1 if N does not exist
//	finish -name N -as M -comment C  rename N to M and set its comment
//	prune -prefix P -keep N       drop the databases named P* except N
func pgdb(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("pgdb: want create, drop, comment, finish or prune")
	}
	fs := flag.NewFlagSet("pgdb", flag.ExitOnError)
	raw := fs.String("url", "", "a PostgreSQL URL of the server (its database is where the commands run)")
	name := fs.String("name", "", "the database")
	template := fs.String("template", "", "create: the database to copy")
	as := fs.String("as", "", "finish: the new name")
	comment := fs.String("comment", "", "finish: the comment")
	prefix := fs.String("prefix", "", "prune: the name prefix")
	keep := fs.String("keep", "", "prune: the database to keep")
	fs.Parse(args[1:])
	for _, n := range []string{*name, *template, *as, *keep, *prefix} {
		if n != "" && !dbName.MatchString(n) {
			return fmt.Errorf("pgdb: bad database name %q", n)
		}
	}
	if *name == "" && args[0] != "prune" {
		return errors.New("pgdb: -name is required")
	}
	db, err := sql.Open("postgres", *raw)
	if err != nil {
		return err
	}
	defer db.Close()
	switch args[0] {
	case "create":
		q := "CREATE DATABASE " + *name
		if *template != "" {
			q += " TEMPLATE " + *template
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
		u, err := url.Parse(*raw)
		if err != nil {
			return err
		}
		u.Path = "/" + *name
		fmt.Println(u.String())
	case "drop":
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+*name+" WITH (FORCE)"); err != nil {
			return err
		}
	case "comment":
		var c sql.NullString
		err := db.QueryRowContext(ctx, "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", *name).Scan(&c)
		if errors.Is(err, sql.ErrNoRows) {
			os.Exit(1)
		}
		if err != nil {
			return err
		}
		fmt.Println(c.String)
	case "finish":
		if _, err := db.ExecContext(ctx, "ALTER DATABASE "+*name+" RENAME TO "+*as); err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, "COMMENT ON DATABASE "+*as+" IS "+pqQuote(*comment)); err != nil {
			return err
		}
	case "prune":
		if *prefix == "" {
			return errors.New("pgdb prune: -prefix is required")
		}
		rows, err := db.QueryContext(ctx, "SELECT datname FROM pg_database WHERE starts_with(datname, $1) AND datname <> $2", *prefix, *keep)
		if err != nil {
			return err
		}
		var names []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return err
			}
			names = append(names, n)
		}
		rows.Close()
		for _, n := range names {
			if !dbName.MatchString(n) {
				continue
			}
			if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)"); err != nil {
				return err
			}
			fmt.Fprintln(os.Stderr, "dropped", n)
		}
	default:
		return fmt.Errorf("pgdb: unknown command %q", args[0])
	}
	return nil
}

func pqQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

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
				!strings.HasPrefix(name, "flagpole_response_cache") {
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
