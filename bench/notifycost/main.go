// Command notifycost measures what the NOTIFY triggers of migration 4
// cost the voting application's writers on PostgreSQL: the contract's
// INSERT INTO votes from many connections, with the triggers and without
// them, in alternating rounds on one throw-away database, while one
// connection LISTENs as a serving instance does.
//
//	go run ./bench/notifycost -url postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
//	    [-conns 16] [-rate 1000] [-round 10s] [-rounds 3]
//
// Each round runs twice: flat out (the writers' throughput) and paced at
// -rate votes a second in all (the latency of one INSERT, p50 and p99).
// It prints one JSON line per round and a summary of the ratios.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"

	"github.com/flagpole/flagpole/loader"
)

var triggers = []string{"votes", "flags", "users", "flag_snapshots", "data_changes", "api_keys"}

func main() {
	base := flag.String("url", os.Getenv("FLAGPOLE_TEST_POSTGRES"), "PostgreSQL URL of a database to create the throw-away one beside")
	conns := flag.Int("conns", 16, "writer connections")
	rate := flag.Int("rate", 1000, "votes a second in all, for the paced rounds")
	round := flag.Duration("round", 10*time.Second, "length of one round")
	rounds := flag.Int("rounds", 3, "rounds of each kind")
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
	ln := pq.NewListener(dbURL, time.Second, time.Second, nil)
	defer ln.Close()
	if err := ln.Listen("flagpole_changes"); err != nil {
		return err
	}
	var notes atomic.Int64
	go func() {
		for range ln.Notify {
			notes.Add(1)
		}
	}()
	w, err := sql.Open("postgres", dbURL)
	if err != nil {
		return err
	}
	defer w.Close()
	w.SetMaxOpenConns(conns)
	w.SetMaxIdleConns(conns)
	var seq atomic.Int64
	type result struct {
		Triggers  bool    `json:"triggers"`
		Paced     bool    `json:"paced"`
		PerSecond float64 `json:"votesPerSecond"`
		P50ms     float64 `json:"p50Ms"`
		P99ms     float64 `json:"p99Ms"`
		Notified  int64   `json:"notifications"`
	}
	sums := map[string][]float64{}
	for r := 0; r < rounds; r++ {
		for _, on := range []bool{true, false} {
			if err := setTriggers(db.DB.DB, on); err != nil {
				return err
			}
			for _, paced := range []bool{false, true} {
				n0 := notes.Load()
				n, lat := write(w, ids, conns, rate, paced, round, &seq)
				res := result{Triggers: on, Paced: paced, PerSecond: float64(n) / round.Seconds(),
					P50ms: pct(lat, 50), P99ms: pct(lat, 99), Notified: notes.Load() - n0}
				b, _ := json.Marshal(res)
				fmt.Println(string(b))
				k := fmt.Sprintf("%v/%v", on, paced)
				sums[k+"/rate"] = append(sums[k+"/rate"], res.PerSecond)
				sums[k+"/p99"] = append(sums[k+"/p99"], res.P99ms)
				sums[k+"/p50"] = append(sums[k+"/p50"], res.P50ms)
			}
		}
	}
	med := func(k string) float64 { v := slices.Clone(sums[k]); slices.Sort(v); return v[len(v)/2] }
	fmt.Printf("{\"summary\":true,\"throughputWithOverWithout\":%.3f,\"pacedP50WithOverWithout\":%.3f,\"pacedP99WithOverWithout\":%.3f,"+
		"\"flatOutWith\":%.0f,\"flatOutWithout\":%.0f}\n",
		med("true/false/rate")/med("false/false/rate"), med("true/true/p50")/med("false/true/p50"),
		med("true/true/p99")/med("false/true/p99"), med("true/false/rate"), med("false/false/rate"))
	return nil
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
