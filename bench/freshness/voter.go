package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq"
	_ "modernc.org/sqlite"
)

// open opens sqlite:FILE or postgres://... and tells the placeholder style
// of its statements for sqlx.Rebind.
func open(raw string) (*sql.DB, int, error) {
	if path, ok := strings.CutPrefix(raw, "sqlite:"); ok {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)")
		if err != nil {
			return nil, 0, err
		}
		db.SetMaxOpenConns(1)
		return db, sqlx.QUESTION, nil
	}
	db, err := sql.Open("postgres", raw)
	return db, sqlx.DOLLAR, err
}

// voter writes contract votes: each from a user of its own on flags it has
// not voted on, so that every INSERT adds one vote.
type voter struct {
	db    *sql.DB
	bind  int // the placeholder style, for sqlx.Rebind
	run   string
	users int
	user  string
	voted map[string]bool
	cast  [][2]string // flag and user of the votes cast and not withdrawn, the last 10,000
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
	_, err := v.db.ExecContext(ctx, sqlx.Rebind(v.bind, "INSERT INTO users (id) VALUES (?)"), v.user)
	return err
}

func (v *voter) vote(ctx context.Context, flagID, color string) error {
	if v.user == "" || v.voted[flagID] || len(v.voted) >= 5000 {
		if err := v.newUser(ctx); err != nil {
			return fmt.Errorf("insert user: %w", err)
		}
	}
	v.voted[flagID] = true
	_, err := v.db.ExecContext(ctx, sqlx.Rebind(v.bind, "INSERT INTO votes (flag_id, user_id, color) VALUES (?, ?, ?)"), flagID, v.user, color)
	if err == nil {
		if len(v.cast) == 10_000 {
			v.cast = v.cast[1:]
		}
		v.cast = append(v.cast, [2]string{flagID, v.user})
	}
	return err
}

// withdraw deletes the last vote this voter cast and has not withdrawn
// (the contract's DELETE); it reports false when there is none.
func (v *voter) withdraw(ctx context.Context) (bool, error) {
	if len(v.cast) == 0 {
		return false, nil
	}
	c := v.cast[len(v.cast)-1]
	v.cast = v.cast[:len(v.cast)-1]
	_, err := v.db.ExecContext(ctx, sqlx.Rebind(v.bind, "DELETE FROM votes WHERE flag_id = ? AND user_id = ?"), c[0], c[1])
	return true, err
}

func (v *voter) approvedIDs(ctx context.Context, n int) ([]string, error) {
	rows, err := v.db.QueryContext(ctx, sqlx.Rebind(v.bind, "SELECT id FROM flags WHERE status = 'APPROVED' ORDER BY id LIMIT ?"), n)
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
	workers := fs.Int("workers", 1, "voters committing at once, each at rate/workers (a commit waits for the disk: one voter commits about 150 a second on the bench's machine)")
	nflags := fs.Int("flags", 20000, "vote on the first this many approved flags by id (1: every vote on one hot flag)")
	withdraw := fs.Float64("withdraw", 0, "the share of writes that withdraw (DELETE) a vote the voter cast before, instead of voting")
	fs.Parse(args)
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	voters := make([]*voter, max(*workers, 1))
	for i := range voters {
		v, err := newVoter(ctx, *dbURL)
		if err != nil {
			return err
		}
		defer v.db.Close()
		voters[i] = v
	}
	ids, err := voters[0].approvedIDs(ctx, max(*nflags, 1))
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return errors.New("no approved flag to vote on")
	}
	tallies := make([]tally, len(voters))
	var wg sync.WaitGroup
	for i, v := range voters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tallies[i] = v.writeVotes(ctx, ids, *rate/float64(len(voters)), *withdraw)
		}()
	}
	wg.Wait()
	var all tally
	for _, t := range tallies {
		all.n, all.withdrawn, all.errs = all.n+t.n, all.withdrawn+t.withdrawn, all.errs+t.errs
		if t.lastErr != "" {
			all.lastErr = t.lastErr
		}
	}
	out := map[string]any{"votes": all.n, "withdrawn": all.withdrawn, "errors": all.errs}
	if all.lastErr != "" {
		out["lastError"] = all.lastErr
	}
	emit(out)
	return nil
}

// tally is what one voter wrote.
type tally struct {
	n, withdrawn, errs int
	lastErr            string
}

// writeVotes votes at rate a second on random flags of ids until ctx ends,
// each write a withdrawal of an earlier vote instead with probability
// withdraw.
func (v *voter) writeVotes(ctx context.Context, ids []string, rate, withdraw float64) tally {
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	var t tally
	for {
		select {
		case <-ctx.Done():
			return t
		case <-tick.C:
		}
		if withdraw > 0 && rand.Float64() < withdraw {
			did, err := v.withdraw(ctx)
			if err != nil && ctx.Err() == nil {
				t.errs++
				t.lastErr = err.Error()
			} else if did && err == nil {
				t.withdrawn++
			}
			if did {
				continue
			}
		}
		color := "red"
		if rand.IntN(2) == 0 {
			color = "green"
		}
		if err := v.vote(ctx, ids[rand.IntN(len(ids))], color); err != nil {
			if ctx.Err() == nil {
				t.errs++
				t.lastErr = err.Error()
			}
			continue
		}
		t.n++
	}
}
