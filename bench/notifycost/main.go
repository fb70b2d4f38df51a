// Command notifycost measures what the triggers cost the voting
// application's writers on PostgreSQL: the contract's INSERT INTO votes
// from many connections, on one throw-away database, in alternating
// rounds of three modes:
//
//   - old: the schema of migration 4 (updated_at stamped by clock, the
//     coalesced NOTIFY of one notifiers' lock), one connection LISTENing
//     as a serving instance did;
//
//   - new: the latest schema (each row stamped with its transaction id,
//     the registration and two notifiers' locks), with a real loader
//     running, listening and passing its barrier before each woken load;
//
//   - trig: the latest schema, one connection LISTENing and nothing else:
//     what the triggers alone cost, without the loader's barriers and reads
//     (and its CPU, which the bench's machine shares with the writers);
//
//   - off: the latest schema with the NOTIFY triggers disabled, nothing
//     listening (the floor).
//
//     go run ./bench/notifycost -url postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
//     [-conns 16] [-rate 1000] [-round 10s] [-rounds 3]
//
// Each round runs twice: flat out (the writers' throughput) and paced at
// -rate votes a second in all (the latency of one INSERT, p50 and p99).
// It prints one JSON line per round and a summary of the ratios.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
	"github.com/robfig/cron/v3"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/memstore"
)

// latest is the schema version of the newest migration.
const latest = 5

// bins are the binaries the old and new modes serve, when given.
var bins [2]string

var triggers = []string{"votes", "flags", "users", "flag_snapshots", "data_changes", "api_keys"}

func main() {
	base := flag.String("url", os.Getenv("FLAGPOLE_TEST_POSTGRES"), "PostgreSQL URL of a database to create the throw-away one beside")
	conns := flag.Int("conns", 16, "writer connections")
	rate := flag.Int("rate", 1000, "votes a second in all, for the paced rounds")
	round := flag.Duration("round", 10*time.Second, "length of one round")
	rounds := flag.Int("rounds", 3, "rounds of each kind")
	flag.StringVar(&bins[0], "old-bin", "", "flagpole binary to serve in the old mode")
	flag.StringVar(&bins[1], "new-bin", "", "flagpole binary to serve in the new mode")
	flag.Parse()
	if err := run(*base, *conns, *rate, *round, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "notifycost:", err)
		os.Exit(1)
	}
}

func run(base string, conns, rate int, round time.Duration, rounds int) error {
	if base == "" {
		return fmt.Errorf("-url or FLAGPOLE_TEST_POSTGRES is required")
	}
	ctx := context.Background()
	dbURL, drop, err := createDB(base)
	if err != nil {
		return err
	}
	defer drop()
	db, err := loader.OpenMigrated(ctx, dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Seed(ctx, loader.SeedOptions{Flags: 1000, Users: 10, Days: 1, Seed: 1}); err != nil {
		return err
	}
	var ids []string
	if err := db.Select(&ids, "SELECT id FROM flags WHERE status = 'APPROVED'"); err != nil {
		return err
	}
	w, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer w.Close()
	w.SetMaxOpenConns(conns)
	w.SetMaxIdleConns(conns)
	var seq atomic.Int64
	type result struct {
		Mode      string  `json:"mode"`
		Paced     bool    `json:"paced"`
		PerSecond float64 `json:"votesPerSecond"`
		P50ms     float64 `json:"p50Ms"`
		P99ms     float64 `json:"p99Ms"`
		Notified  int64   `json:"notifications"`
		Loads     int64   `json:"loads,omitempty"`
	}
	sums := map[string][]float64{}
	for r := 0; r < rounds; r++ {
		for _, mode := range []string{"old", "trig", "new", "off"} {
			var loads atomic.Int64
			stop, notified, err := enter(ctx, db, dbURL, mode, &loads)
			if err != nil {
				return err
			}
			for _, paced := range []bool{false, true} {
				n0, l0 := notified(), loads.Load()
				n, lat := write(w, ids, conns, rate, paced, round, &seq)
				res := result{Mode: mode, Paced: paced, PerSecond: float64(n) / round.Seconds(),
					P50ms: pct(lat, 50), P99ms: pct(lat, 99), Notified: notified() - n0, Loads: loads.Load() - l0}
				b, _ := json.Marshal(res)
				fmt.Println(string(b))
				k := fmt.Sprintf("%s/%v", mode, paced)
				sums[k+"/rate"] = append(sums[k+"/rate"], res.PerSecond)
				sums[k+"/p99"] = append(sums[k+"/p99"], res.P99ms)
				sums[k+"/p50"] = append(sums[k+"/p50"], res.P50ms)
			}
			stop()
		}
	}
	med := func(k string) float64 { v := slices.Clone(sums[k]); slices.Sort(v); return v[len(v)/2] }
	summary := map[string]any{"summary": true}
	for _, m := range []string{"old", "trig", "new", "off"} {
		summary[m] = map[string]float64{"flatOut": med(m + "/false/rate"), "pacedRate": med(m + "/true/rate"),
			"pacedP50Ms": med(m + "/true/p50"), "pacedP99Ms": med(m + "/true/p99")}
	}
	for _, m := range []string{"trig", "new"} {
		summary[m+"OverOld"] = map[string]float64{"flatOut": med(m+"/false/rate") / med("old/false/rate"),
			"pacedP50": med(m+"/true/p50") / med("old/true/p50"), "pacedP99": med(m+"/true/p99") / med("old/true/p99")}
	}
	b, _ := json.Marshal(summary)
	fmt.Println(string(b))
	return nil
}

// enter puts the database in a mode's schema and starts what reads it
// (a listener, or a loader); it returns what stops that and what counts
// the notifications it got.
func enter(ctx context.Context, db *loader.DB, dbURL, mode string, loads *atomic.Int64) (func(), func() int64, error) {
	version := int64(4)
	if mode != "old" {
		version = latest
	}
	if err := db.MigrateTo(ctx, version); err != nil {
		return nil, nil, err
	}
	if err := setTriggers(db.DB.DB, mode != "off"); err != nil {
		return nil, nil, err
	}
	var notes atomic.Int64
	if bin := map[string]string{"old": bins[0], "new": bins[1]}[mode]; bin != "" {
		return serve(ctx, bin, dbURL)
	}
	switch mode {
	case "old", "trig":
		ln := pq.NewListener(dbURL, time.Second, time.Second, nil)
		if err := ln.Listen("flagpole_changes"); err != nil {
			return nil, nil, err
		}
		go func() {
			for range ln.Notify {
				notes.Add(1)
			}
		}()
		return func() { ln.Close() }, notes.Load, nil
	case "new":
		ld := loader.New(db, &memstore.Store{}, loader.Options{Listen: true,
			OnLoad: func(job string, _ time.Duration, _ int, _ error) {
				if job == "flags" {
					loads.Add(1)
				}
			}})
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		ready := make(chan struct{})
		go func() {
			defer close(done)
			ld.Run(rctx, cron.Every(time.Hour), cron.Every(time.Hour), func() { close(ready) })
		}()
		select {
		case <-ready:
		case <-time.After(time.Minute):
			cancel()
			return nil, nil, fmt.Errorf("the loader was not ready within a minute")
		}
		return func() { cancel(); <-done }, func() int64 { return ld.Status().Notifications }, nil
	}
	return func() {}, notes.Load, nil
}

// serve runs bin serve on dbURL until the returned stop; it counts the
// notifications from /metrics on its admin address.
func serve(ctx context.Context, bin, dbURL string) (func(), func() int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	// No config.yaml of the checkout: the two binaries may know
	// different settings.
	empty, err := os.CreateTemp("", "notifycost-*.yaml")
	if err != nil {
		cancel()
		return nil, nil, err
	}
	empty.Close()
	defer os.Remove(empty.Name())
	cmd := exec.CommandContext(ctx, bin, "serve", "--config", empty.Name(), "--db", dbURL, "--addr", "127.0.0.1:0",
		"--admin-addr", "127.0.0.1:0", "--access-log=false", "--snapshot-daily=false", "--log-format", "json")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, nil, err
	}
	admin := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`"admin_addr":"([^"]+)"`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case admin <- m[1]:
				default:
				}
			}
		}
	}()
	var addr string
	select {
	case addr = <-admin:
	case <-time.After(time.Minute):
		cancel()
		cmd.Wait()
		return nil, nil, fmt.Errorf("%s serve printed no admin address within a minute", bin)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			cancel()
			cmd.Wait()
			return nil, nil, fmt.Errorf("%s serve was not ready within a minute", bin)
		}
	}
	notes := func() int64 {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return 0
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		m := regexp.MustCompile(`(?m)^flagpole_listen_notifications_total (\S+)$`).FindSubmatch(b)
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return int64(v)
	}
	return func() { cmd.Process.Signal(os.Interrupt); cmd.Wait(); cancel() }, notes, nil
}

// write inserts votes from conns connections for d, flat out or paced at
// rate a second in all, each from a user of its own; it returns how many
// and each INSERT's latency.
func write(w *sql.DB, ids []string, conns, rate int, paced bool, d time.Duration, seq *atomic.Int64) (int64, []time.Duration) {
	var n atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			every := time.Duration(float64(time.Second) * float64(conns) / float64(rate))
			next := time.Now()
			user := fmt.Sprintf("nc-%d-%d", time.Now().UnixNano(), seq.Add(1))
			if _, err := w.Exec("INSERT INTO users (id) VALUES ($1)", user); err != nil {
				return
			}
			for i := 0; time.Now().Before(end); i++ {
				if paced {
					time.Sleep(time.Until(next))
					next = next.Add(every)
				}
				if i == len(ids) {
					user = fmt.Sprintf("nc-%d-%d", time.Now().UnixNano(), seq.Add(1))
					if _, err := w.Exec("INSERT INTO users (id) VALUES ($1)", user); err != nil {
						return
					}
					i = 0
				}
				t := time.Now()
				if _, err := w.Exec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, $2, $3)", ids[i], user, "red"); err != nil {
					continue
				}
				mine = append(mine, time.Since(t))
				n.Add(1)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return n.Load(), lat
}

func setTriggers(db *sql.DB, on bool) error {
	verb := "DISABLE"
	if on {
		verb = "ENABLE"
	}
	for _, t := range triggers {
		if _, err := db.Exec(fmt.Sprintf("ALTER TABLE %s %s TRIGGER %s_notify", t, verb, t)); err != nil {
			return err
		}
	}
	return nil
}

func pct(d []time.Duration, p int) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return float64(d[min(len(d)-1, len(d)*p/100)].Microseconds()) / 1000
}

// createDB makes a database beside base's and returns its URL and a
// function that drops it.
func createDB(base string) (string, func(), error) {
	admin, err := sql.Open("postgres", base)
	if err != nil {
		return "", nil, err
	}
	var b [6]byte
	rand.Read(b[:])
	name := "flagpole_notifycost_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		admin.Close()
		return "", nil, err
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		admin.Close()
	}, nil
}
