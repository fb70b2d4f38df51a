package ratelimit

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Leases. A key with a high limit, asked often on an instance, would cost
// that instance a Redis round trip per request. Instead, when such a
// request goes to Redis, it asks for its own slot and for as many more as
// the key's recent rate on this instance would spend in a lease's time
// (250 ms): Redis counts them all in the window at once, and the instance
// spends the extra slots locally, without a round trip, until they are
// gone or the lease's time is up. Then it gives the unspent ones back:
// the key's next ask in its own call, or else the background returns.
//
// Exactness: a lease's slots are stamped in the window with the end of
// the lease (Redis's time when it granted them, plus leaseMS), and the
// instance spends none after that end, measured on its own clock
// (Redis.now) from before it asked. So each slot stays in the window for
// at least 60 seconds after the request that spent it, and every window still holds at most the
// limit: never more than the limit in any rolling 60 s, on every instance
// together. What a lease costs is the other way: its unspent slots count
// as spent until they are given back, so other instances may be refused
// early while they are held. To keep that small, a lease holds at most a
// 64th of the key's limit, only keys of at least 128 a minute lease (so a
// key at the default 60 is decided exactly, request by request), and no
// lease is granted past three quarters of a window: the last quarter of a
// budget is always decided request by request.

const (
	// leaseFor is how long a lease's slots may be spent.
	leaseFor = 250 * time.Millisecond
	// leaseShare: a lease holds at most limit/leaseShare slots beyond the
	// request that asked for it; a key whose limit is below twice it
	// never leases.
	leaseShare = 64
	// maxLease bounds a lease's slots whatever the limit.
	maxLease = 1000
)

// lease is an instance's view of one key: the slots it holds and the
// key's recent rate here.
type lease struct {
	key        string
	mu         sync.Mutex
	limit      int       // the limit the slots were granted under
	left       int       // slots held, not spent yet
	until      time.Time // no slot is spent from then on (Redis.now)
	stamp      int64     // the window's stamp of the held slots
	count      int       // the window's count when granted, every held slot included
	reset      time.Time // the window's reset when granted
	onHeldList bool      // on Redis.heldLeases, waiting to give back what is left
	gone       bool      // swept from Redis.leases: not to be used
	askPending bool      // a request of this key is asking Redis for slots
	asked      time.Time // when the last ask began, before it was queued (Redis.now)
	seen       int       // the key's decisions on this instance since then
}

// spend takes one held slot for a request of limit, if the lease allows.
func (l *lease) spend(limit int, mono time.Time) (Decision, bool) {
	if l.left == 0 || l.limit != limit || !mono.Before(l.until) {
		return Decision{}, false
	}
	l.left--
	used := l.count - l.left
	return Decision{Allowed: true, Limit: limit, Remaining: max(limit-used, 0), Used: used, Reset: l.reset}, true
}

// unspent is the slots held and still spendable for limit at mono.
func (l *lease) unspent(limit int, mono time.Time) int {
	if l.limit != limit || !mono.Before(l.until) {
		return 0
	}
	return l.left
}

// extra is how many slots beyond its own the asking request asks for:
// the key's rate here since the last ask, over a lease's time.
func (l *lease) extra(limit int, mono time.Time, leaseTime time.Duration) int {
	if l.asked.IsZero() {
		return 0
	}
	since := max(mono.Sub(l.asked), time.Millisecond)
	n := int64(l.seen) * int64(leaseTime) / int64(since)
	return int(min(n, int64(limit/leaseShare), maxLease))
}

// errRefused ends an ask that was refused without a round trip.
var errRefused = errors.New("refused locally")

// unspent is an ended lease's unspent slots to remove from its window: how
// many, of which stamp.
type unspent struct {
	stamp int64
	n     int
}

// leaseMS is a lease's time as the script stamps it: in whole
// milliseconds rounded up, plus one, since Redis's clock counts whole
// milliseconds and the instance's lease runs from a time within the
// millisecond before Redis's.
func leaseMS(d time.Duration) int64 {
	return (int64(d)+int64(time.Millisecond)-1)/int64(time.Millisecond) + 1
}

// returnScript removes unspent slots: ARGV[2i-1] is the stamp of KEYS[i]'s
// slots and ARGV[2i] how many, counted from the list's end (a lease's
// slots are among its newest). Slots of one stamp are alike, so which of
// them goes does not matter. A count of 0 removes nothing (LREM's 0 would
// remove every slot of the stamp, spent ones too).
var returnScript = redis.NewScript(`
for i, key in ipairs(KEYS) do
  local n = tonumber(ARGV[2 * i])
  if n > 0 then redis.call('LREM', key, -n, ARGV[2 * i - 1]) end
end
return #KEYS
`)

// leaseOf is key's lease, made on first use.
func (r *Redis) leaseOf(key string) *lease {
	if v, ok := r.leases.Load(key); ok {
		return v.(*lease)
	}
	v, _ := r.leases.LoadOrStore(key, &lease{key: key})
	return v.(*lease)
}

// slotAsk is what a request that goes to Redis for a key that leases asks.
type slotAsk struct {
	want     int     // slots: its own, and the lease's
	giveBack unspent // the ended lease's unspent slots, given back in the same call
}

// take spends one held slot for a request of limit when it can (ok).
// When it cannot and no other request of the key is asking Redis, the
// request asks (a.want > 0), giving back what an ended lease left; when
// another is asking, a.want is 0. gone: the lease was swept, take another.
// It reads the time from now under the lease's lock: no slot is spent
// after the lease's end.
func (l *lease) take(limit int, leaseTime time.Duration, now func() time.Time) (d Decision, ok bool, a slotAsk, gone bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gone {
		return Decision{}, false, slotAsk{}, true
	}
	mono := now()
	l.seen++
	if d, ok := l.spend(limit, mono); ok {
		return d, true, slotAsk{}, false
	}
	if l.askPending {
		return Decision{}, false, slotAsk{}, false
	}
	a.want = 1 + l.extra(limit, mono, leaseTime)
	if l.left > 0 { // ended, or granted under another limit
		a.giveBack = unspent{stamp: l.stamp, n: l.left}
		l.left = 0
	}
	l.askPending, l.asked, l.seen = true, mono, 0
	return Decision{}, false, a, false
}

// done records what Redis granted the asking request beyond its own slot:
// slots to spend for a lease's time from the ask (l.asked, read before
// the request was queued, so before Redis stamped them).
func (l *lease) done(r *Redis, limit int, a answer, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.askPending = false
	if err != nil || a.granted <= 1 {
		return
	}
	l.limit, l.left, l.until, l.stamp = limit, a.granted-1, l.asked.Add(r.leaseFor), a.stamp
	l.count, l.reset = a.count, a.d.Reset
	if !l.onHeldList {
		l.onHeldList = true
		r.heldMu.Lock()
		r.heldLeases = append(r.heldLeases, l)
		r.heldMu.Unlock()
	}
}

// returns gives back, every quarter of a lease's time, the slots of the
// leases whose time is up, until the limiter closes; then all.
func (r *Redis) returns(every time.Duration) {
	defer close(r.returned)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			r.giveBackExpired(r.now(), false)
		case <-r.stop:
			r.giveBackExpired(r.now(), true)
			return
		}
	}
}

// giveBackExpired returns the unspent slots of the leases whose time is
// up at mono (of every lease when all is set) in one script call.
func (r *Redis) giveBackExpired(mono time.Time, all bool) {
	// l.mu is never taken under r.heldMu: done takes r.heldMu under l.mu.
	r.heldMu.Lock()
	held, strays := r.heldLeases, r.strays
	r.heldLeases, r.strays = nil, nil
	r.heldMu.Unlock()
	var keep []*lease
	var keys []string
	var args []any
	for _, s := range strays {
		keys = append(keys, r.windowKey(s.key))
		args = append(args, s.stamp, s.n)
	}
	for _, l := range held {
		l.mu.Lock()
		if all || !mono.Before(l.until) {
			if l.left > 0 {
				keys = append(keys, r.windowKey(l.key))
				args = append(args, l.stamp, l.left)
				l.left = 0
			}
			l.onHeldList = false
		} else {
			keep = append(keep, l)
		}
		l.mu.Unlock()
	}
	if len(keep) > 0 {
		r.heldMu.Lock()
		r.heldLeases = append(r.heldLeases, keep...)
		r.heldMu.Unlock()
	}
	if len(keys) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	if err := returnScript.Run(ctx, r.client, keys, args...).Err(); err != nil {
		// The slots stay counted until they leave the window: other
		// instances may be refused early, never allowed too much. Not
		// retried: the script may have run.
		for i := 1; i < len(args); i += 2 {
			r.notGivenBack.Add(int64(args[i].(int)))
		}
	}
}

// stray is lease slots granted to a request that no longer waited for
// them: to be given back with the next ended leases'.
type stray struct {
	key string
	unspent
}

// strand records slots granted to a request that gave up waiting.
func (r *Redis) strand(key string, bk unspent) {
	r.heldMu.Lock()
	r.strays = append(r.strays, stray{key, bk})
	r.heldMu.Unlock()
}

// sweepLeases forgets the leases of keys not asked for a window's time.
func (r *Redis) sweepLeases() {
	mono := r.now()
	r.leases.Range(func(k, v any) bool {
		l := v.(*lease)
		l.mu.Lock()
		if !l.askPending && !l.onHeldList && mono.Sub(l.asked) > Window {
			l.gone = true
			r.leases.CompareAndDelete(k, v)
		}
		l.mu.Unlock()
		return true
	})
}

// Leased counts the requests allowed from a lease, without a round trip.
func (r *Redis) Leased() int64 { return r.leased.Load() }

// GiveBackFailures counts the unspent slots that could not be given back,
// or not known to be: a give-back that failed, or an ask that carried
// slots to give back and failed.
func (r *Redis) GiveBackFailures() int64 { return r.notGivenBack.Load() }
