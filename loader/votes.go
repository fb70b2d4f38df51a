package loader

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/flagpole/flagpole/memstore"
)

// How a load keeps /stats' vote windows (votewindows.go) current.
//
// A full load, or one whose windows no longer cover now, reads the
// creation time of every vote of the last 30 days on an approved flag.
// An incremental load reads only what changed (migrations 00007 on
// PostgreSQL, 00005 on SQLite):
//
//   - the votes stamped past the last load's position (fresh): inserted
//     since, or moved to another flag or time; of any age, so that they
//     can be counted against the flag's counters;
//   - the removals of the flags it read (gone): a flag's row keeps its
//     last 16 votes deleted or moved away (removed_votes: migrations
//     00008, SQLite's 00006), each with the stamp of the removal, the
//     vote's own stamp and its time. A load takes from the windows the
//     votes the last load counted, among the removals it has not seen;
//   - whole, all the votes in the window of each approved flag whose
//     reread_stamp it has not seen (on PostgreSQL a flag approved), and
//     of each flag the windows cannot follow: one the last snapshot did
//     not hold (new, or approved since), whose kept removals may miss
//     some it has not seen (all 16 unseen), whose removals the windows do
//     not hold, or whose counters did not move by exactly its fresh votes
//     less its removals. The counters are kept by triggers, so that check
//     holds unless a counter clamped at zero (a flag imported with fewer
//     votes than rows, then voted on).
//
// A change of colour is an UPDATE that keeps the vote's stamp and time:
// the windows do not count colours, and the vote is not read again.
//
// A vote's transaction may commit between the moment a load asks for its
// position and its snapshot (PostgreSQL): the load reads and counts the
// vote, but the position has not seen its stamp, so the next load finds
// it again. The stamps read that the position has not seen are kept
// (loadResult.again), and the next load skips their fresh votes and
// their removals. The same holds for a removal.

// loadVotes is what a load read of the votes.
type loadVotes struct {
	all   map[string][]int64 // rebuilt windows: every approved flag's votes in the window
	fresh map[string][]int64 // else: the votes not seen, by flag, of any age
	whole map[string][]int64 // and the flags read whole: an entry, maybe empty, for each
	gone  map[string][]int64 // the times of the counted votes removed since, by flag
	lost  map[string]bool    // the flags whose removals not seen may be more than were kept
	rows  int                // rows read
	// again is the stamps of the votes and removals read that the load's
	// position has not seen: the next load skips them.
	again map[uint64]struct{}
}

// voteScan reads the rows of a vote query: flag id, creation time (Unix
// ms) and stamp, the last two NULL for a flag with no votes (wholeVotes'
// outer join).
type voteScan struct {
	into map[string][]int64
	// pos is the load's: the stamps it has not seen, below below (on
	// PostgreSQL the snapshot's xmax, xmaxNow; 0 on SQLite), go into again.
	pos   *position
	below uint64
	skip  map[uint64]struct{} // fresh votes only: the last load's again
	v     *loadVotes
}

func (s voteScan) rows(rows *sql.Rows) error {
	for rows.Next() {
		var id string
		var ms, stamp sql.NullInt64
		if err := rows.Scan(&id, &ms, &stamp); err != nil {
			return err
		}
		s.v.rows++
		if !ms.Valid {
			if _, ok := s.into[id]; !ok {
				s.into[id] = []int64{}
			}
			continue
		}
		st := uint64(stamp.Int64)
		if s.pos != nil && s.pos.unseen(st) && !ahead(st, s.below) {
			s.v.again[st] = struct{}{}
		}
		if _, ok := s.skip[st]; ok {
			continue
		}
		s.into[id] = append(s.into[id], ms.Int64)
	}
	return rows.Err()
}

// query runs a vote query through r and scans its rows.
func (s voteScan) query(ctx context.Context, r reader, query string, args ...any) error {
	return queryRows(ctx, r, s.rows, query, args...)
}

// queryRows runs query through r and hands its rows to scan.
func queryRows(ctx context.Context, r reader, scan func(*sql.Rows) error, query string, args ...any) error {
	rows, err := r.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return scan(rows)
}

func newLoadVotes() *loadVotes {
	return &loadVotes{fresh: map[string][]int64{}, whole: map[string][]int64{}, gone: map[string][]int64{},
		lost: map[string]bool{}, again: map[uint64]struct{}{}}
}

// keptRemovals is how many removals a flag's row keeps (the migrations'
// 48 numbers, three each).
const keptRemovals = 16

// removedScan reads the rows of a removals query: flag id, and its kept
// removals as comma-separated numbers, three each (removal stamp, vote
// stamp, time in Unix ms), the oldest first.
type removedScan struct {
	prev    position            // the last load's: the removals it has not seen are new
	counted map[uint64]struct{} // and the stamps it counted that prev had not seen
	pos     *position           // this load's, and below: as voteScan's
	below   uint64
	v       *loadVotes
	// stampsOnly: a load that rebuilt the windows keeps only the stamps
	// its position has not seen (again; prev is that position).
	stampsOnly bool
}

func (s removedScan) rows(rows *sql.Rows) error {
	for rows.Next() {
		var id, list string
		if err := rows.Scan(&id, &list); err != nil {
			return err
		}
		s.v.rows++
		s.flag(id, list)
	}
	return rows.Err()
}

// flag takes the removals of one flag. A list it cannot read (a writer
// whose SQLite lacks what the trigger computes with) makes it read the
// flag whole.
func (s removedScan) flag(id, list string) {
	fields := strings.Split(list, ",")
	n := make([]int64, len(fields))
	for i, f := range fields {
		x, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			n = nil
			break
		}
		n[i] = x
	}
	if len(n)%3 != 0 || len(n) == 0 {
		if !s.stampsOnly {
			s.v.lost[id] = true
		}
		return
	}
	for i := 0; i < len(n); i += 3 {
		stamp, vote := uint64(n[i]), uint64(n[i+1])
		if ahead(stamp, s.below) || !s.prev.unseen(stamp) {
			continue // seen, or another cluster's (see xmaxNow)
		}
		if s.pos.unseen(stamp) {
			s.v.again[stamp] = struct{}{}
		}
		if _, ok := s.counted[stamp]; ok || s.stampsOnly {
			continue // the last load took it
		}
		if i == 0 && len(n) >= 3*keptRemovals {
			s.v.lost[id] = true // older ones, not kept, may be unseen too
		}
		// Counted: seen by the last load, or another cluster's (a
		// restored vote, which the full load after the restore read).
		if _, ok := s.counted[vote]; ok || !s.prev.unseen(vote) || ahead(vote, s.below) {
			s.v.gone[id] = append(s.v.gone[id], n[i+2])
		}
	}
}

// readVotes is readAggregates' read of the votes, one statement at a
// time: every vote in the window when the windows are rebuilt, else the
// fresh votes and the flags to read whole (prev, flags: the last
// snapshot and the flags this load read).
func (l *Loader) readVotes(ctx context.Context, ld *load, rebuild bool, prev *memstore.Snapshot, flags []memstore.FlagInput, now time.Time) (*loadVotes, error) {
	v := newLoadVotes()
	cut := tsText(now.Add(-voteWindow))
	if rebuild {
		v.all = map[string][]int64{}
		if err := (voteScan{into: v.all, pos: &ld.pos, below: ld.xmax, v: v}).query(ctx, ld, l.db.q.voteTimes, cut); err != nil {
			return nil, err
		}
		// The removals its position has not seen, which its snapshot
		// holds: the next load must not take them again.
		next, running := l.db.unseenArgs(ld.pos)
		removed := removedScan{prev: ld.pos, pos: &ld.pos, below: ld.xmax, v: v, stampsOnly: true}
		return v, removed.query(ctx, ld, l.db.q.removedVotes, next, running)
	}
	next, running := l.db.unseenArgs(l.pos)
	if err := (voteScan{into: v.fresh, pos: &ld.pos, below: ld.xmax, skip: l.counted, v: v}).query(ctx, ld, l.db.q.unseenVotes, next, running); err != nil {
		return nil, err
	}
	if err := (voteScan{into: v.whole, v: v}).query(ctx, ld, l.db.q.wholeVotes, cut, next, running, next, running); err != nil {
		return nil, err
	}
	if err := l.removed(v, &ld.pos, ld.xmax).query(ctx, ld, l.db.q.removedVotes, next, running); err != nil {
		return nil, err
	}
	ids := v.needWhole(prev, flags, l.votes, now)
	const batch = 500 // well under either database's limit on bound values
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		query, args, err := sqlx.In(l.db.q.voteTimesOf, cut, part)
		if err != nil {
			return nil, err
		}
		if err := (voteScan{into: v.whole, v: v}).query(ctx, ld, l.db.Rebind(query), args...); err != nil {
			return nil, err
		}
		for _, id := range part {
			if _, ok := v.whole[id]; !ok {
				v.whole[id] = []int64{}
			}
		}
	}
	return v, nil
}

// removed is the scan of a load's removals (pos, below: its position
// and the bound of its stamps, as voteScan's).
func (l *Loader) removed(v *loadVotes, pos *position, below uint64) removedScan {
	return removedScan{prev: l.pos, counted: l.counted, pos: pos, below: below, v: v}
}

// query runs a removals query through r and scans its rows.
func (s removedScan) query(ctx context.Context, r reader, query string, args ...any) error {
	return queryRows(ctx, r, s.rows, query, args...)
}

// needWhole is the approved flags among flags, not read whole yet, whose
// votes the windows w cannot follow by adding their fresh ones and taking
// their removals: prev does not hold them, their removals not seen may be
// more than were kept, w does not hold the votes removed, or their
// counters moved by other than their fresh votes less their removals
// (now: the load's time; before the windows' edge, 30 days earlier, w
// may or may not hold a vote).
func (v *loadVotes) needWhole(prev *memstore.Snapshot, flags []memstore.FlagInput, w *voteWindows, now time.Time) []string {
	var ids []string
	for i := range flags {
		f := &flags[i]
		if _, ok := v.whole[f.ID]; ok || !f.Approved {
			continue
		}
		h, ok := prev.FlagByID(f.ID)
		gone := v.gone[f.ID]
		if !ok || v.lost[f.ID] || f.Red+f.Green-(h.Red+h.Green) != int64(len(v.fresh[f.ID])-len(gone)) || !w.holds(f.ID, gone, now.Add(-voteWindow).UnixMilli()) {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// update applies an incremental load's votes to w: every flag read is
// dropped (not approved), set (read whole) or given its fresh votes less
// its removals. needWhole must be empty.
func (v *loadVotes) update(w *voteWindows, flags []memstore.FlagInput) {
	for i := range flags {
		f := &flags[i]
		if !f.Approved {
			w.setFlag(f.ID, nil)
		} else if ts, ok := v.whole[f.ID]; ok {
			w.setFlag(f.ID, ts)
		} else {
			w.takeFlag(f.ID, v.gone[f.ID])
			w.addFlag(f.ID, v.fresh[f.ID])
		}
	}
}

// ahead is whether a stamp is another cluster's: at or above below, the
// load snapshot's xmax (xmaxNow; 0 on SQLite, where none is).
func ahead(stamp, below uint64) bool { return below != 0 && stamp >= below }

// unseen is whether a stamp is one p has not seen.
func (p position) unseen(stamp uint64) bool {
	return stamp >= p.next || slices.Contains(p.running, stamp)
}
