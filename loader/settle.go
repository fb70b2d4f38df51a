package loader

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// A notification of a vote wakes the flag load, but not at once: first
// the settler makes sure that what the notification stands for can be
// read.
//
//   - Votes notify coalesced (migration 00005): a vote that commits while
//     another transaction holds the notifiers' locks does not notify, and
//     it may commit just after the one that did. Such a vote registered
//     first (a shared advisory lock until its commit ends, on either of
//     two registration locks). The barrier, flagpole_barrier() on the
//     primary, takes and lets go each notifiers' lock (so every vote that
//     skipped its notification because of the one that woke us has
//     registered), then each registration lock, exclusively: it returns
//     once every vote registered before it has committed, so the load
//     that follows reads them all. While it waits for one registration
//     lock, votes register on the other: no writer waits, and none
//     notifies because of a barrier.
//   - A loader that reads a replica waits until the replica has replayed
//     the primary's WAL as far as it was at the barrier
//     (pg_last_wal_replay_lsn against pg_current_wal_lsn): the load then
//     sees what the notification announced, whatever the replica's lag,
//     without reading before it has it or waking again later on a timer.
//
// The settler passes its barrier only once a load could start (see
// gate): one barrier a load, for every notification before it began.
// Which rows the load then reads is decided by its position (see
// position), not here: the settler only decides when.
type settler struct {
	primary *DB
	replica *DB // nil when the loads read the primary
	wake    func()
	gate    *gate // the barrier waits until a load could start (see gate)
	log     func(err error, msg string, args ...any)

	rings chan struct{} // one slot: a notification came
	// targets are the primary's WAL positions the replica has to replay,
	// oldest first, each with the time it was asked for.
	targets []target
	waitMS  int       // the barrier's wait for a lock; small while one is held by another session
	heldAt  time.Time // when the barrier last waited out a lock

	barriers, waitedOut atomic.Int64
	lastErr             time.Time
	rechecking          atomic.Bool // a barrier is due again (see recheck)
}

type target struct {
	lsn uint64
	at  time.Time
}

const (
	// barrierWait is how long the barrier waits for each lock, in ms: a
	// vote holds one only while it commits. A lock held longer is another
	// session's, or a commit that takes long (a synchronous standby that
	// is slow to answer): for heldFor after that, the barrier waits
	// heldWait, and passes again recheck later (and so on while a lock is
	// still held), so that a vote whose commit outlasted the wait is read
	// once it has committed.
	barrierWait = 500
	heldWait    = 10
	heldFor     = 10 * time.Second
	recheck     = time.Second
	// barrierTimeout bounds a barrier on a primary that does not answer:
	// the load then runs without it. It leaves room for the four locks'
	// waits, so that a barrier is not cut short by its own waits.
	barrierTimeout = 4*barrierWait*time.Millisecond + time.Second
	// replayPoll is how often the replica's replay is read while a target
	// is pending; maxTargets bounds them (the oldest and the newest are
	// kept, so that both the first and the last notification are met).
	replayPoll = 5 * time.Millisecond
	maxTargets = 64
	// maxReplayWait is how long a target waits for a replica that does
	// not replay: the load then runs without it.
	maxReplayWait = time.Minute
)

func newSettler(primary, replica *DB, g *gate, wake func(), log func(error, string, ...any)) *settler {
	return &settler{primary: primary, replica: replica, gate: g, wake: wake, log: log,
		rings: make(chan struct{}, 1), waitMS: barrierWait}
}

// ring wakes the load, noting at the gate that a load is rung for: the
// settler passes no barrier until that load has run.
func (s *settler) ring() {
	s.gate.ring()
	s.wake()
}

// notified tells the settler a notification came.
func (s *settler) notified() { knock(s.rings) }

// run settles the notifications until ctx ends.
func (s *settler) run(ctx context.Context) {
	poll := time.NewTicker(replayPoll)
	defer poll.Stop()
	for {
		var tick <-chan time.Time
		if len(s.targets) > 0 {
			tick = poll.C
		}
		select {
		case <-ctx.Done():
			return
		case <-s.rings:
			s.settle(ctx)
		case <-tick:
			s.replayed(ctx)
		}
	}
}

// settle waits until a load could start, passes the barrier, then wakes
// the load, or, with a replica, asks for the replica to reach the
// primary's WAL position first.
func (s *settler) settle(ctx context.Context) {
	if s.gate.wait(ctx); ctx.Err() != nil {
		return
	}
	select {
	case <-s.rings: // came while it waited: the barrier covers it
	default:
	}
	lsn, err := s.barrier(ctx)
	if err != nil {
		if ctx.Err() == nil && time.Since(s.lastErr) > 10*time.Second {
			s.lastErr = time.Now()
			s.log(err, "the barrier before a load failed; loading without it")
		}
		s.ring()
		return
	}
	if s.replica == nil || lsn == 0 {
		s.ring()
		return
	}
	t := target{lsn: lsn, at: time.Now()}
	if n := len(s.targets); n > 0 && s.targets[n-1].lsn >= lsn {
		return // an earlier target covers it
	}
	if len(s.targets) == maxTargets {
		s.targets = append(s.targets[:maxTargets-2], s.targets[maxTargets-1])
	}
	s.targets = append(s.targets, t)
	s.replayed(ctx)
}

// barrier runs flagpole_barrier on the primary and returns the primary's
// WAL position after it (0 when unknown).
func (s *settler) barrier(ctx context.Context) (uint64, error) {
	if !s.heldAt.IsZero() && time.Since(s.heldAt) > heldFor {
		s.waitMS, s.heldAt = barrierWait, time.Time{}
	}
	ctx, cancel := context.WithTimeout(ctx, barrierTimeout)
	defer cancel()
	waitedOut, lsn, err := s.pass(ctx)
	if err != nil {
		return 0, fmt.Errorf("barrier: %w", s.primary.Explain(err))
	}
	s.barriers.Add(1)
	if waitedOut > 0 {
		s.waitedOut.Add(int64(waitedOut))
		if s.heldAt.IsZero() {
			s.log(fmt.Errorf("%d of its locks held past %d ms", waitedOut, s.waitMS),
				"the barrier before a load waited out a lock (another session's, or a slow commit); it passes again every second while one is held")
		}
		s.waitMS, s.heldAt = heldWait, time.Now()
		if s.rechecking.CompareAndSwap(false, true) {
			time.AfterFunc(recheck, func() {
				s.rechecking.Store(false)
				s.notified()
			})
		}
	}
	if !lsn.Valid {
		return 0, nil
	}
	return parseLSN(lsn.String)
}

// pass runs flagpole_barrier on a connection of its own, which it closes
// rather than gives back to the pool when the call fails: the barrier
// takes session-level locks, and a call cut short between taking one and
// letting it go (a cancel, a timeout) would leave the lock held by a
// pooled session for good, and every vote after it registering on the
// other lock or notifying alone.
func (s *settler) pass(ctx context.Context) (waitedOut int, lsn sql.NullString, err error) {
	conn, err := s.primary.Conn(ctx)
	if err != nil {
		return 0, lsn, err
	}
	defer conn.Close()
	err = conn.QueryRowContext(ctx, "SELECT waited_out, lsn FROM flagpole_barrier($1)", s.waitMS).Scan(&waitedOut, &lsn)
	if err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn }) // Close then discards it
	}
	return waitedOut, lsn, err
}

// replayed reads how far the replica has replayed and wakes the load once
// for the targets it has reached (or waited for too long).
func (s *settler) replayed(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var at sql.NullString
	if err := s.replica.QueryRowContext(ctx, "SELECT pg_last_wal_replay_lsn()::text").Scan(&at); err != nil {
		if ctx.Err() == nil {
			s.dropStale()
		}
		return
	}
	reached := uint64(1<<64 - 1) // not a standby: nothing to wait for
	if at.Valid {
		var err error
		if reached, err = parseLSN(at.String); err != nil {
			reached = 1<<64 - 1
		}
	}
	n := 0
	for n < len(s.targets) && s.targets[n].lsn <= reached {
		n++
	}
	if n > 0 {
		s.targets = s.targets[n:]
		s.ring()
	}
	s.dropStale()
}

// dropStale gives up the targets a replica has not reached within
// maxReplayWait, waking the load for them.
func (s *settler) dropStale() {
	n := 0
	for n < len(s.targets) && time.Since(s.targets[n].at) > maxReplayWait {
		n++
	}
	if n > 0 {
		s.targets = s.targets[n:]
		s.ring()
	}
}

// parseLSN reads PostgreSQL's text form of a WAL position, X/Y in hex.
func parseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("WAL position %q", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("WAL position %q", s)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("WAL position %q", s)
	}
	return h<<32 | l, nil
}
