package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// The tests of this file run serve as operators run it on PostgreSQL: a
// real streaming replica with a lag, the API and the voting application
// under roles of their own (neither a superuser, neither with
// pg_read_all_stats), a transaction left open, a primary that stalls.
// They use hour-long schedules: only the database's wake-ups, and the
// polling while the listener is down, can show a change.

// operatedRoles creates, on the primary, the API's role and the voting
// application's, with the grants docs/deploy.md lists.
func operatedRoles(t *testing.T, primary *loader.DB) {
	t.Helper()
	for _, q := range []string{
		"CREATE ROLE flagpole_api LOGIN",
		"GRANT SELECT ON flags, votes, users, flag_snapshots, api_keys, data_changes, goose_db_version TO flagpole_api",
		"CREATE ROLE voting_app LOGIN",
		"GRANT SELECT, INSERT, UPDATE, DELETE ON votes TO voting_app",
		"GRANT SELECT, INSERT ON users TO voting_app",
		"GRANT SELECT, UPDATE ON flags TO voting_app",
	} {
		primary.MustExec(q)
	}
}

// servedCounts reads every flag's counts as base serves them.
func servedCounts(t *testing.T, base, key string) map[string][2]int64 {
	t.Helper()
	out := map[string][2]int64{}
	for offset := 0; ; offset += 100 {
		st, body := get(t, fmt.Sprintf("%s/api/public/flags?limit=100&offset=%d", base, offset), key)
		var page struct {
			Data []struct {
				ID    string
				Votes struct{ Red, Green int64 }
			}
		}
		if err := json.Unmarshal(body, &page); st != 200 || err != nil {
			t.Fatalf("/flags: %d %s", st, body)
		}
		for _, f := range page.Data {
			out[f.ID] = [2]int64{f.Votes.Red, f.Votes.Green}
		}
		if len(page.Data) < 100 {
			return out
		}
	}
}

// servesAsStored waits until base serves every approved flag of db with
// its counts, and nothing else.
func servesAsStored(t *testing.T, what, base, key string, db *loader.DB, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		want := map[string][2]int64{}
		rows, err := db.Query("SELECT id, red_count, green_count FROM flags WHERE status = 'APPROVED'")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			var r, g int64
			rows.Scan(&id, &r, &g)
			want[id] = [2]int64{r, g}
		}
		rows.Close()
		got := servedCounts(t, base, key)
		diff := ""
		if len(got) != len(want) {
			diff = fmt.Sprintf("%d flags served, %d approved", len(got), len(want))
		}
		for id, w := range want {
			if diff == "" && got[id] != w {
				diff = fmt.Sprintf("flag %s served %v, stored %v", id, got[id], w)
			}
		}
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %s", what, within, diff)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOperatedReplicaAndRoles: serve reads a streaming replica 300 ms
// behind its primary, both as the API's own role; the voting application
// votes as another role, in bursts of 8 concurrent commits, while one of
// its transactions stays open (it has written) and one commits long
// after it began. Every vote shows, with hour-long schedules.
func TestOperatedReplicaAndRoles(t *testing.T) {
	loadertest.RequirePostgres(t)
	c := loadertest.StartCluster(t, loadertest.ClusterOptions{ApplyDelay: 300 * time.Millisecond})
	mustRun(t, "seed", "--db", c.Primary, "--flags", "40", "--users", "5", "--days", "2")
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", c.Primary, "--name", "operated", "--limit", "100000"))
	ctx := context.Background()
	primary, err := loader.Open(ctx, c.Primary)
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	operatedRoles(t, primary)
	c.WaitReplayed(t)

	s := startServe(t, noEnv, append([]string{"--db", loadertest.As(c.Primary, "flagpole_api"),
		"--db-replica", loadertest.As(c.Replica, "flagpole_api"), "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, hourly...)...)
	base, admin := listenAddr(t, s), adminBase(t, s)
	waitReady(t, s, base)

	voter, err := loader.Open(ctx, loadertest.As(c.Primary, "voting_app"))
	if err != nil {
		t.Fatal(err)
	}
	defer voter.Close()
	var ids []string
	if err := voter.Select(&ids, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	for w := 0; w < 8; w++ {
		voter.MustExec(fmt.Sprintf("INSERT INTO users (id) VALUES ('writer-%d')", w))
	}
	voter.MustExec("INSERT INTO users (id) VALUES ('open'), ('late')")
	open, err := voter.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer open.Rollback()
	open.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'open', 'green')", ids[0])
	late, err := voter.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer late.Rollback()
	late.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, 'late', 'red')", ids[1])

	for round := 0; round < 5; round++ {
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := ids[2+(round*8+w)%(len(ids)-2)]
				if _, err := voter.Exec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, $2, 'red')", id, fmt.Sprintf("writer-%d", w)); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		servesAsStored(t, fmt.Sprintf("burst %d", round+1), base, key, primary, 30*time.Second)
	}
	if err := late.Commit(); err != nil {
		t.Fatal(err)
	}
	servesAsStored(t, "the vote that began first and committed last", base, key, primary, 30*time.Second)
	// What the operator sees: the database woke the loads, through the
	// barrier; nothing polled.
	if n := scrape(t, admin, "flagpole_load_wakeups_total", `{job="flags",source="database"}`); n < 1 {
		t.Errorf("flag wake-ups by the database: %v", n)
	}
	if n := scrape(t, admin, "flagpole_load_barriers_total", ""); n < 1 {
		t.Errorf("barriers: %v", n)
	}
	if n := scrape(t, admin, "flagpole_load_wakeups_total", `{job="flags",source="polling"}`); n != 0 {
		t.Errorf("flag wake-ups by polling with the listener up: %v", n)
	}
}

// adminBase is the admin address's base URL that serve logged.
func adminBase(t *testing.T, s *server) string {
	t.Helper()
	m := s.waitFor(t, "the admin address", 30*time.Second, func() []string {
		return adminAddr.FindStringSubmatch(s.stderr.String())
	})
	return "http://" + m[1]
}

// TestOperatedStalledPrimary: the primary's connections from serve stall
// (a proxy that forwards nothing and keeps its sockets open) while the
// replica stays healthy and the voting application keeps writing the
// primary directly. serve finds its listener silent, then loads from the
// replica every poll interval, and its keys too: the votes and a new key
// show (before: the loads waited on the primary for db_timeout, and with
// listening up nothing polled).
func TestOperatedStalledPrimary(t *testing.T) {
	loadertest.RequirePostgres(t)
	c := loadertest.StartCluster(t, loadertest.ClusterOptions{})
	mustRun(t, "seed", "--db", c.Primary, "--flags", "30", "--users", "5", "--days", "2")
	key := strings.TrimSpace(mustRun(t, "keys", "create", "--db", c.Primary, "--name", "stall", "--limit", "100000"))
	c.WaitReplayed(t)
	proxied, proxy := viaProxy(t, c.Primary)

	args := []string{"--db", proxied, "--db-replica", c.Replica, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}
	args = append(args, hourly...)
	args = append(args, "--db-timeout", "30s")
	s := startServe(t, noEnv, args...)
	base, admin := listenAddr(t, s), adminBase(t, s)
	waitReady(t, s, base)

	ctx := context.Background()
	primary, err := loader.Open(ctx, c.Primary)
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	proxy.Stall()
	primary.MustExec("INSERT INTO users (id) VALUES ('during-stall')")
	primary.MustExec("INSERT INTO votes (flag_id, user_id, color) SELECT id, 'during-stall', 'red' FROM flags " +
		"WHERE status = 'APPROVED' ORDER BY id LIMIT 10")
	newKey := strings.TrimSpace(mustRun(t, "keys", "create", "--db", c.Primary, "--name", "during-stall"))
	c.WaitReplayed(t)
	servesAsStored(t, "the votes written during the stall", base, key, primary, 40*time.Second)
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, _ := get(t, base+"/api/public/rate_limit", newKey)
		if st == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a key created during the stall: %d", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// What the operator sees: the listener down, the loads polling.
	if up := scrape(t, admin, "flagpole_listen_up", ""); up != 0 {
		t.Errorf("flagpole_listen_up %v during the stall", up)
	}
	if n := scrape(t, admin, "flagpole_load_wakeups_total", `{job="flags",source="polling"}`); n < 1 {
		t.Errorf("flag wake-ups by polling during the stall: %v", n)
	}
}
