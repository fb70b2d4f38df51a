package loader

import (
	"context"
	"database/sql"
	"slices"
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
//   - whole, all the votes in the window of each approved flag whose
//     reread_stamp it has not seen (a vote deleted or moved away; on
//     PostgreSQL also the flag approved), and of each flag the windows
//     cannot follow by adding: one the last snapshot did not hold (new,
//     or approved since), or whose counters did not move by exactly its
//     fresh votes. The counters are kept by triggers, so that check holds
//     unless a vote was taken away or a counter clamped at zero (a flag
//     imported with fewer votes than rows, then voted on).
//
// A change of colour is an UPDATE that keeps the vote's stamp and time:
// the windows do not count colours, and the vote is not read again.
//
// A vote's transaction may commit between the moment a load asks for its
// position and its snapshot (PostgreSQL): the load reads and counts the
// vote, but the position has not seen its stamp, so the next load finds
// it again. The stamps read that the position has not seen are kept
// (loadResult.again), and the next load skips their fresh votes.

// loadVotes is what a load read of the votes.
type loadVotes struct {
	all   map[string][]int64 // rebuilt windows: every approved flag's votes in the window
	fresh map[string][]int64 // else: the votes not seen, by flag, of any age
	whole map[string][]int64 // and the flags read whole: an entry, maybe empty, for each
	rows  int                // rows read
	// again is the stamps of the votes read that the load's position has
	// not seen: the next load skips their fresh votes.
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
		if s.pos != nil && s.pos.unseen(st) && (s.below == 0 || st < s.below) {
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
	rows, err := r.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return s.rows(rows)
}

func newLoadVotes() *loadVotes {
	return &loadVotes{fresh: map[string][]int64{}, whole: map[string][]int64{}, again: map[uint64]struct{}{}}
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
		return v, voteScan{into: v.all, pos: &ld.pos, below: ld.xmax, v: v}.query(ctx, ld, l.db.q.voteTimes, cut)
	}
	next, running := l.db.unseenArgs(l.pos)
	if err := (voteScan{into: v.fresh, pos: &ld.pos, below: ld.xmax, skip: l.counted, v: v}).query(ctx, ld, l.db.q.unseenVotes, next, running); err != nil {
		return nil, err
	}
	if err := (voteScan{into: v.whole, v: v}).query(ctx, ld, l.db.q.wholeVotes, cut, next, running, next, running); err != nil {
		return nil, err
	}
	ids := v.needWhole(prev, flags)
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

// needWhole is the approved flags among flags, not read whole yet, whose
// votes the windows cannot follow by adding their fresh ones: prev does
// not hold them, or their counters moved by other than their fresh votes.
func (v *loadVotes) needWhole(prev *memstore.Snapshot, flags []memstore.FlagInput) []string {
	var ids []string
	for i := range flags {
		f := &flags[i]
		if _, ok := v.whole[f.ID]; ok || !f.Approved {
			continue
		}
		if h, ok := prev.FlagByID(f.ID); !ok || f.Red+f.Green-(h.Red+h.Green) != int64(len(v.fresh[f.ID])) {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// update applies an incremental load's votes to w: every flag read is
// dropped (not approved), set (read whole) or given its fresh votes.
// needWhole must be empty.
func (v *loadVotes) update(w *voteWindows, flags []memstore.FlagInput) {
	for i := range flags {
		f := &flags[i]
		if !f.Approved {
			w.setFlag(f.ID, nil)
		} else if ts, ok := v.whole[f.ID]; ok {
			w.setFlag(f.ID, ts)
		} else {
			w.addFlag(f.ID, v.fresh[f.ID])
		}
	}
}

// unseen is whether a stamp is one p has not seen.
func (p position) unseen(stamp uint64) bool {
	return stamp >= p.next || slices.Contains(p.running, stamp)
}
