package ratelimit

import (
	"hash/maphash"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// LogSample is how many refusals of one address per minute are reported
// one by one (Verdict.Log); the rest are counted and reported once.
const LogSample = 5

// Addrs limits the requests of each client address with a token bucket
// (GCRA): a burst of limit requests, then one every minute/limit: limit a
// minute sustained, and at most 2·limit−1 in any rolling minute (the burst
// and the limit−1 that the minute after it refills). One small entry per
// address, held in memory only while its bucket is not full again: Sweep
// drops the rest. It never calls anything outside the process.
type Addrs struct {
	rate     atomic.Pointer[addrRate] // SetLimit changes it
	perShard int                      // addresses remembered per shard at most
	seed     maphash.Seed
	shards   [64]addrShard
}

type addrShard struct {
	mu sync.Mutex
	m  map[netip.Addr]addrState
}

type addrState struct {
	tat     int64  // theoretical arrival time of the next request, Unix ns
	minute  int64  // the minute the refusals below belong to
	refused uint32 // refusals in that minute
}

// Verdict is the answer for one request of an address: allowed (the zero
// Verdict) or refused.
type Verdict struct {
	Refused    bool
	RetryAfter time.Duration // when refused: until the next request fits
	// Log says to write this refusal to the access log: true for the
	// first LogSample refusals of an address in a minute.
	Log bool
	// Unlogged, when not zero, is how many refusals of the address's
	// previous minute of refusals went unlogged: write them as one line.
	Unlogged uint32
}

// NewAddrs limits each address to limit requests a minute, remembering at
// most maxAddrs addresses (past it, a new address is not limited until the
// next sweep makes room: the bound holds memory, not clients).
func NewAddrs(limit, maxAddrs int) *Addrs {
	a := &Addrs{perShard: max(maxAddrs/64, 1), seed: maphash.MakeSeed()}
	a.SetLimit(limit)
	for i := range a.shards {
		a.shards[i].m = map[netip.Addr]addrState{}
	}
	return a
}

// addrRate is a limit of Addrs and the bucket's times it sets.
type addrRate struct {
	limit    int
	interval int64 // ns between two requests at the sustained rate
	burst    int64 // ns the theoretical arrival time may run ahead of now
}

// SetLimit makes the limit limit requests a minute from now on. The
// addresses' buckets stay as they are: one that spent its burst under the
// old limit is refused until it refills at the new rate.
func (a *Addrs) SetLimit(limit int) {
	limit = max(limit, 1)
	interval := int64(time.Minute) / int64(limit)
	a.rate.Store(&addrRate{limit: limit, interval: interval, burst: interval * int64(limit-1)})
}

// Limit is the number of requests an address may make in a minute.
func (a *Addrs) Limit() int { return a.rate.Load().limit }

func (a *Addrs) shard(addr netip.Addr) *addrShard {
	b := addr.As16()
	return &a.shards[maphash.Bytes(a.seed, b[:])%uint64(len(a.shards))]
}

// Allow takes one request of addr at now, or refuses it.
func (a *Addrs) Allow(addr netip.Addr, now time.Time) Verdict {
	t := now.UnixNano()
	sh := a.shard(addr)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	st, ok := sh.m[addr]
	if !ok && len(sh.m) >= a.perShard {
		sh.sweep(t, nil)
		if len(sh.m) >= a.perShard {
			return Verdict{}
		}
	}
	rate := a.rate.Load()
	tat := max(st.tat, t)
	if tat-t <= rate.burst {
		st.tat = tat + rate.interval
		sh.m[addr] = st
		return Verdict{}
	}
	r := Verdict{Refused: true, RetryAfter: time.Duration(tat - t - rate.burst)}
	if minute := t / int64(time.Minute); st.minute != minute {
		if st.refused > LogSample {
			r.Unlogged = st.refused - LogSample
		}
		st.minute, st.refused = minute, 0
	}
	st.refused++
	r.Log = st.refused <= LogSample
	sh.m[addr] = st
	return r
}

// Len is the number of addresses remembered.
func (a *Addrs) Len() int {
	n := 0
	for i := range a.shards {
		sh := &a.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}

// Sweep forgets the addresses whose bucket is full again, and reports
// through unlogged (when not nil) the refusals of past minutes that were
// counted but not logged.
func (a *Addrs) Sweep(now time.Time, unlogged func(addr netip.Addr, n uint32)) {
	t := now.UnixNano()
	for i := range a.shards {
		sh := &a.shards[i]
		sh.mu.Lock()
		sh.sweep(t, unlogged)
		sh.mu.Unlock()
	}
}

// Flush reports through unlogged every count of refusals not yet
// reported, the current minute's too, and clears them (at shutdown).
func (a *Addrs) Flush(unlogged func(addr netip.Addr, n uint32)) {
	for i := range a.shards {
		sh := &a.shards[i]
		sh.mu.Lock()
		for addr, st := range sh.m {
			if st.refused > LogSample {
				unlogged(addr, st.refused-LogSample)
				st.refused = LogSample
				sh.m[addr] = st
			}
		}
		sh.mu.Unlock()
	}
}

func (sh *addrShard) sweep(t int64, unlogged func(netip.Addr, uint32)) {
	minute := t / int64(time.Minute)
	for addr, st := range sh.m {
		if st.minute < minute && st.refused > 0 {
			if st.refused > LogSample && unlogged != nil {
				unlogged(addr, st.refused-LogSample)
			}
			st.refused = 0
			sh.m[addr] = st
		}
		if st.tat <= t && st.refused == 0 {
			delete(sh.m, addr)
		}
	}
}
