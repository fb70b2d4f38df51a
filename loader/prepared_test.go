package loader_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// TestPreparedPlans: the plans PostgreSQL makes once for the load's
// prepared statements (prepared.go) are generic (they name the
// parameters, not values: plan_cache_mode took) and read the rows not
// seen through the stamp indexes, never by reading a whole table: on
// 20,000 rows each the plain condition's generic plan read all of them.
// The votes of the flags read whole are read by flag.
func TestPreparedPlans(t *testing.T) {
	db, _ := loadertest.Open(t, loader.Postgres)
	db.MustExec(`INSERT INTO flags (id, slug, status, category, text_tr, text_en, text_de, text_es, red_count, green_count)
		SELECT 'f' || i, 's' || i, 'APPROVED', 'SOCIAL', 't', 't', 't', 't', i % 7, i % 5 FROM generate_series(1, 20000) i`)
	db.MustExec(`INSERT INTO users (id) SELECT 'u' || i FROM generate_series(1, 5000) i`)
	db.MustExec(`INSERT INTO votes (flag_id, user_id, color) SELECT 'f' || (i % 20000 + 1), 'u' || (i % 5000 + 1), 'red' FROM generate_series(1, 20000) i`)
	db.MustExec(`INSERT INTO data_changes (kind) SELECT 'seed' FROM generate_series(1, 20000)`)
	db.MustExec("ANALYZE")
	var next uint64
	if err := db.Get(&next, "SELECT max(stamp) FROM flags"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const p = "flagpole_load_test_"
	if _, err := conn.ExecContext(ctx, loader.PrepareScript(db, p)); err != nil {
		t.Fatal(err)
	}
	for _, running := range [][]uint64{nil, {next - 3, next - 1}} {
		a := loader.PreparedArgs(db, next, running...)
		for _, call := range []string{
			fmt.Sprintf(p+"position(%d, '{}', 50000)", next),
			p + "tables",
			p + "changes(" + a + ")",
			p + "flags(" + a + ")",
			p + "users(" + a + ")",
			p + "votes(" + a + ")",
			p + "whole(" + a + ", now() - interval '30 days')",
			p + "removed(" + a + ")",
		} {
			var plan string
			err := func() error {
				tx, err := conn.BeginTx(ctx, nil)
				if err != nil {
					return err
				}
				defer tx.Rollback()
				if _, err := tx.ExecContext(ctx, loader.GenericPlans); err != nil {
					return err
				}
				return tx.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) EXECUTE "+call).Scan(&plan)
			}()
			if err != nil {
				t.Fatalf("%s: %v", call, err)
			}
			var nodes []struct{ Plan planNode }
			if err := json.Unmarshal([]byte(plan), &nodes); err != nil || len(nodes) != 1 {
				t.Fatalf("%s: the plan %q: %v", call, plan, err)
			}
			stamped, generic := false, false
			nodes[0].Plan.walk(func(n *planNode) {
				cond := n.Filter + " " + n.IndexCond + " " + n.RecheckCond
				if !strings.Contains(cond, "stamp") {
					return
				}
				stamped = true
				generic = generic || strings.Contains(cond, "$1") || strings.Contains(cond, "$2")
				if n.NodeType == "Seq Scan" {
					t.Errorf("%s: reads all of %s for the rows not seen:\n%s", call, n.Relation, plan)
				}
			})
			nodes[0].Plan.walk(func(n *planNode) {
				if n.NodeType == "Seq Scan" && n.Relation == "votes" {
					t.Errorf("%s: reads all of votes:\n%s", call, plan)
				}
				// The flags' votes by the primary key, not every vote
				// since the window's edge.
				if n.Relation == "votes" && strings.HasPrefix(call, p+"whole") && !strings.Contains(n.IndexCond, "flag_id") {
					t.Errorf("%s: reads votes by %q, not by flag:\n%s", call, n.IndexCond, plan)
				}
			})
			if stamped && !generic {
				t.Errorf("%s: the plan is for the values, not generic (plan_cache_mode):\n%s", call, plan)
			}
			if !stamped && strings.Contains(call, "(") && !strings.HasPrefix(call, p+"position") {
				t.Errorf("%s: no condition on stamp in the plan:\n%s", call, plan)
			}
		}
	}
}

// planNode is one node of EXPLAIN (FORMAT JSON), what the test reads.
type planNode struct {
	NodeType    string     `json:"Node Type"`
	Relation    string     `json:"Relation Name"`
	Filter      string     `json:"Filter"`
	IndexCond   string     `json:"Index Cond"`
	RecheckCond string     `json:"Recheck Cond"`
	Plans       []planNode `json:"Plans"`
}

func (n *planNode) walk(f func(*planNode)) {
	f(n)
	for i := range n.Plans {
		n.Plans[i].walk(f)
	}
}

// TestPreparedLoads: the incremental loads run prepared on the connection
// the loader keeps; one that finds them gone (a pooler in transaction
// mode hands each transaction another session) reads the same load
// unprepared and the loader plans every load from then on; a kept
// connection that breaks, or has served keptFor, is replaced by the next
// load.
func TestPreparedLoads(t *testing.T) {
	db, _ := loadertest.Open(t, loader.Postgres)
	seed(t, db, loader.SeedOptions{Flags: 20, Users: 3, Days: 2, Seed: 3})
	ctx := context.Background()
	var id string
	if err := db.Get(&id, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT 1"); err != nil {
		t.Fatal(err)
	}
	user := 0
	vote := func() {
		user++
		u := fmt.Sprintf("prepared-%d", user)
		db.MustExec("INSERT INTO users (id) VALUES ($1)", u)
		db.MustExec("INSERT INTO votes (flag_id, user_id, color) VALUES ($1, $2, 'green')", id, u)
	}
	// kept returns the backend of ld's kept connection and, of each of its
	// statements, how often PostgreSQL ran it on its generic plan and on
	// one made for the values.
	type plans struct{ generic, custom int }
	kept := func(ld *loader.Loader) (pid int, stmts map[string]plans) {
		t.Helper()
		prefix := loader.KeptPrefix(ld)
		ok, err := loader.KeptConn(ld, func(c *sql.Conn) error {
			if err := c.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				return err
			}
			rows, err := c.QueryContext(ctx, "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements")
			if err != nil {
				return err
			}
			defer rows.Close()
			stmts = map[string]plans{}
			for rows.Next() {
				var n string
				var p plans
				if err := rows.Scan(&n, &p.generic, &p.custom); err != nil {
					return err
				}
				stmts[strings.TrimPrefix(n, prefix)] = p
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return 0, nil
		}
		return pid, stmts
	}
	names := func(stmts map[string]plans) string {
		var ns []string
		for n := range stmts {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		return strings.Join(ns, " ")
	}
	const all = "changes flags position removed tables users votes whole"

	ld, store := loaderOf(db)
	mustLoad(t, ld) // the first load reads everything, the long way
	mustLoad(t, ld) // the first incremental one prepares
	vote()
	mustLoad(t, ld)
	mustLoad(t, ld)
	pid, stmts := kept(ld)
	if names(stmts) != all {
		t.Fatalf("the kept connection holds the statements %q, want %q", names(stmts), all)
	}
	for n, p := range stmts {
		if p.generic != 3 || p.custom != 0 {
			t.Errorf("after three loads, %s ran %d times on its generic plan and %d on a custom one; want 3 and 0", n, p.generic, p.custom)
		}
	}
	_, green, _ := counts(store, id)

	// The backend of the kept connection ends (a restart, an
	// administrator): a load may fail on it, the next prepares anew.
	db.MustExec("SELECT pg_terminate_backend($1)", pid)
	vote()
	if err := ld.LoadFlags(ctx); err != nil {
		mustLoad(t, ld)
	}
	if _, g, _ := counts(store, id); g != green+1 {
		t.Fatalf("after the kept connection ended, the vote does not show: green %d, want %d", g, green+1)
	}
	if pid2, stmts := kept(ld); pid2 == 0 || pid2 == pid || names(stmts) != all {
		t.Fatalf("after the kept connection ended: backend %d (was %d), statements %q", pid2, pid, names(stmts))
	}

	// A kept connection serves keptFor, then the next load prepares on
	// another (so that it follows the database's address when it moves).
	pid, _ = kept(ld)
	loader.AgeKept(ld)
	mustLoad(t, ld)
	if pid2, stmts := kept(ld); pid2 == pid || names(stmts) != all {
		t.Fatalf("after keptFor, the loads keep backend %d (was %d), statements %q", pid2, pid, names(stmts))
	}

	// A statement gone from the session, as behind a pooler in
	// transaction mode (here the flags', which the load finds missing in
	// its message, after its position): the same load reads unprepared,
	// and so do the next.
	prefix := loader.KeptPrefix(ld)
	if _, err := loader.KeptConn(ld, func(c *sql.Conn) error { _, err := c.ExecContext(ctx, "DEALLOCATE "+prefix+"flags"); return err }); err != nil {
		t.Fatal(err)
	}
	vote()
	mustLoad(t, ld)
	if _, g, _ := counts(store, id); g != green+2 {
		t.Fatalf("after the statements were gone, the vote does not show: green %d, want %d", g, green+2)
	}
	if !loader.Unprepared(ld) {
		t.Fatal("the loader still prepares after its statements were gone")
	}
	if pid, _ := kept(ld); pid != 0 {
		t.Fatal("the loader still keeps a connection after its statements were gone")
	}
	vote()
	mustLoad(t, ld)
	if _, g, _ := counts(store, id); g != green+3 {
		t.Fatalf("unprepared, the vote does not show: green %d, want %d", g, green+3)
	}
	if ld.Status().LastFull {
		t.Error("the unprepared load read everything")
	}
}
