package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// hourly are schedules that do not tick within a test: only a wake-up
// from the database can show a change in time.
var hourly = []string{"--refresh", "@every 1h", "--key-refresh", "@every 1h", "--full-reload", "0",
	"--access-log=false", "--snapshot-daily=false", "--db-timeout", "1s"}

// liveRig is a small seeded database, a key on it, and a way in that
// bypasses serve.
type liveRig struct {
	dbURL, key string
	direct     *loader.DB
	users      atomic.Int64
}

func newLiveRig(t *testing.T, d loader.Dialect) *liveRig {
	t.Helper()
	r := &liveRig{dbURL: loadertest.URL(t, d)}
	mustRun(t, "seed", "--db", r.dbURL, "--flags", "30", "--users", "5", "--days", "3")
	r.key = strings.TrimSpace(mustRun(t, "keys", "create", "--db", r.dbURL, "--name", "live", "--limit", "100000"))
	db, err := loader.Open(context.Background(), r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r.direct = db
	return r
}

// anyFlag returns the id and slug of an approved flag, read from the
// database.
func (r *liveRig) anyFlag(t *testing.T) (id, slug string) {
	t.Helper()
	if err := r.direct.QueryRow("SELECT id, slug FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT 1").Scan(&id, &slug); err != nil {
		t.Fatal(err)
	}
	return id, slug
}

// firstFlag returns the id, slug and red count of the first flag of the
// default page as base serves it.
func (r *liveRig) firstFlag(t *testing.T, base string) (id, slug string, red int64) {
	t.Helper()
	st, body := get(t, base+"/api/public/flags?limit=1", r.key)
	var page struct {
		Data []struct {
			ID, Slug string
			Votes    struct{ Red int64 }
		}
	}
	if err := json.Unmarshal(body, &page); st != 200 || err != nil || len(page.Data) != 1 {
		t.Fatalf("/flags: %d %s (%v)", st, body, err)
	}
	f := page.Data[0]
	return f.ID, f.Slug, f.Votes.Red
}

// vote writes one red vote of a new user on flag id, through the
// statements of the contract.
func (r *liveRig) vote(t *testing.T, id string) {
	t.Helper()
	user := fmt.Sprintf("live-user-%d", r.users.Add(1))
	if _, err := r.direct.Exec(r.direct.Rebind("INSERT INTO users (id) VALUES (?)"), user); err != nil {
		t.Fatal(err)
	}
	if _, err := r.direct.Exec(r.direct.Rebind("INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)"), id, user, "red"); err != nil {
		t.Fatal(err)
	}
}

// redOf is the red count base serves for slug.
func (r *liveRig) redOf(t *testing.T, base, slug string) int64 {
	t.Helper()
	st, body := get(t, base+"/api/public/flag/"+slug, r.key)
	var f struct{ Votes struct{ Red int64 } }
	if err := json.Unmarshal(body, &f); st != 200 || err != nil {
		t.Fatalf("/flag/%s: %d %s", slug, st, body)
	}
	return f.Votes.Red
}

// TestLiveServe: serve with hour-long schedules shows a vote, refuses a
// revoked key and accepts a new one at once, because the database wakes
// its loads, on both databases; the CLI's keys revoke, from another
// process's connection, is seen too.
func TestLiveServe(t *testing.T) {
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			r := newLiveRig(t, d)
			s := startServe(t, noEnv, append([]string{"--db", r.dbURL, "--addr", "127.0.0.1:0"}, hourly...)...)
			base := listenAddr(t, s)
			waitReady(t, s, base)
			id, slug, red := r.firstFlag(t, base)
			r.vote(t, id)
			until(t, "the vote shows", 10*time.Second, func() bool { return r.redOf(t, base, slug) == red+1 })

			key2 := strings.TrimSpace(mustRun(t, "keys", "create", "--db", r.dbURL, "--name", "second"))
			until(t, "a new key is accepted", 10*time.Second, func() bool { return getStatus(base+"/api/public/stats", key2) == 200 })
			keys, _ := listKeys(t, r.dbURL)
			revoke(t, r.dbURL, keys, key2)
			until(t, "the revoked key is refused", 10*time.Second, func() bool { return getStatus(base+"/api/public/stats", key2) == 401 })
		})
	}
}

// revoke revokes the key whose secret is secret with `keys revoke`.
func revoke(t *testing.T, db string, keys map[string]keyRow, secret string) {
	t.Helper()
	for id, k := range keys {
		if k.prefix == secret[:8]+"…" {
			mustRun(t, "keys", "revoke", "--db", db, id)
			return
		}
	}
	t.Fatalf("no key of prefix %s in %v", secret[:8], keys)
}

// listenerPID is the backend of serve's listener connection.
func listenerPID(t *testing.T, db *loader.DB) int {
	t.Helper()
	var pid int
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := db.Get(&pid, "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1", loader.ListenerName)
		if err == nil {
			return pid
		}
		if err != sql.ErrNoRows || time.Now().After(deadline) {
			t.Fatalf("the listener's connection: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestListenerKilled: the listener's backend is terminated while votes
// arrive. It comes back by itself, loads at once (what was notified while
// it was away is lost), and later votes show as before.
func TestListenerKilled(t *testing.T) {
	r := newLiveRig(t, loader.Postgres)
	s := startServe(t, noEnv, append([]string{"--db", r.dbURL, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, hourly...)...)
	base := listenAddr(t, s)
	waitReady(t, s, base)
	admin := "http://" + adminAddr.FindStringSubmatch(s.stderr.String())[1]
	id, slug, red := r.firstFlag(t, base)
	pid := listenerPID(t, r.direct)
	stop := make(chan struct{})
	voted := make(chan int)
	go func() { // votes arrive while the listener is killed
		n := 0
		defer func() { voted <- n }()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				r.vote(t, id)
				n++
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := r.direct.Exec("SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	until(t, "the listener reconnects", 10*time.Second, func() bool {
		return scrape(t, admin, "flagpole_listen_reconnects_total", "") >= 1
	})
	time.Sleep(100 * time.Millisecond)
	close(stop)
	n := <-voted
	if n == 0 {
		t.Fatal("no vote was written while the listener was killed")
	}
	until(t, "every vote shows", 10*time.Second, func() bool { return r.redOf(t, base, slug) == red+int64(n) })
	if p := listenerPID(t, r.direct); p == pid {
		t.Errorf("the listener's backend is still %d", pid)
	}
	r.vote(t, id)
	until(t, "a vote after the reconnect shows", 10*time.Second, func() bool { return r.redOf(t, base, slug) == red+int64(n)+1 })
}

// TestListenerStalled: the listener's connection stalls (a partition that
// closes nothing), while the loads read a replica that answers. The
// listener's pings notice within its timeout, /metrics says it is down,
// and when the network returns it reconnects and loads what was written
// meanwhile, with hour-long schedules.
func TestListenerStalled(t *testing.T) {
	r := newLiveRig(t, loader.Postgres)
	proxied, proxy := viaProxy(t, r.dbURL)
	// The listener listens on db (the primary), the loads read the
	// replica: here the same database, around the proxy.
	s := startServe(t, noEnv, append([]string{"--db", proxied, "--db-replica", r.dbURL, "--addr", "127.0.0.1:0",
		"--admin-addr", "127.0.0.1:0"}, hourly...)...)
	base := listenAddr(t, s)
	waitReady(t, s, base)
	admin := "http://" + adminAddr.FindStringSubmatch(s.stderr.String())[1]
	until(t, "the listener is up", 10*time.Second, func() bool { return scrape(t, admin, "flagpole_listen_up", "") == 1 })
	id, slug, red := r.firstFlag(t, base)
	proxy.Stall()
	until(t, "the stalled listener is noticed", 20*time.Second, func() bool { return scrape(t, admin, "flagpole_listen_up", "") == 0 })
	r.vote(t, id)
	proxy.Restore()
	until(t, "the vote written during the stall shows once the listener is back", 20*time.Second, func() bool {
		return r.redOf(t, base, slug) == red+1
	})
	until(t, "flagpole_listen_up is 1 again", 20*time.Second, func() bool { return scrape(t, admin, "flagpole_listen_up", "") == 1 })
}

// TestKeysWhileHistoryLoads: the trend history cannot load (its table is
// locked by another transaction), yet the key load runs from the first
// second: a new key is accepted and a revoked one refused.
func TestKeysWhileHistoryLoads(t *testing.T) {
	r := newLiveRig(t, loader.Postgres)
	tx, err := r.direct.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("LOCK TABLE flag_snapshots IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, noEnv, append([]string{"--db", r.dbURL, "--addr", "127.0.0.1:0"}, hourly...)...)
	base := listenAddr(t, s)
	waitReady(t, s, base)
	if strings.Contains(s.stderr.String(), "trend history loaded") {
		t.Fatal("the trend history loaded through the lock: the test tests nothing")
	}
	key2 := strings.TrimSpace(mustRun(t, "keys", "create", "--db", r.dbURL, "--name", "during-history"))
	until(t, "a new key is accepted while the history loads", 10*time.Second, func() bool {
		return getStatus(base+"/api/public/stats", key2) == 200
	})
	keys, _ := listKeys(t, r.dbURL)
	revoke(t, r.dbURL, keys, r.key)
	until(t, "a revoked key is refused while the history loads", 10*time.Second, func() bool {
		return getStatus(base+"/api/public/stats", r.key) == 401
	})
	if strings.Contains(s.stderr.String(), "trend history loaded") {
		t.Fatal("the trend history loaded through the lock: the test did not hold it back")
	}
	tx.Rollback()
	s.waitFor(t, "the trend history", 30*time.Second, func() []string {
		if strings.Contains(s.stderr.String(), "trend history loaded") {
			return []string{""}
		}
		return nil
	})
}
