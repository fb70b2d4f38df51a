package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// A key's window is a Redis list of the Unix milliseconds (Redis's clock)
// of its slots, in the order they were granted: its length is the count,
// and slots leave it from the head. It is not oldest-first once a key
// leases: a lease's slots are stamped ahead, at the lease's end, so slots
// a later call appends behind them can carry older stamps. Trimming stops
// at the first slot still in the window, so such an older slot stays
// counted until the leased ones before it leave, at most leaseMS longer:
// the count errs high, never low. A list costs no hashing of members and
// no conversion of scores from and to floating point, which took most of
// Redis's time with a sorted set.

// batchScript decides a batch of requests in one call, in order, on
// Redis's own clock: KEYS[i] is request i's window, ARGV[1] the window in
// milliseconds, ARGV[2] a lease's time in milliseconds (rounded up, plus
// one: Redis's clock counts whole milliseconds), and four per request from
// ARGV[4i-1]: its limit, the slots it asks for (one for itself, more for a
// lease: see lease.go), and the stamp and number of an ended lease's
// unspent slots to give back first. A request is granted nothing when the window is
// full, else its own slot and as many of the others as keep the window
// within three quarters of the limit. Each window is trimmed and counted
// once per batch and appended to once; the count follows the batch's own
// grants, so requests for one key inside a batch are decided one after
// the other exactly as separate calls would be. A request's own slot is
// stamped now, a lease's slots at the lease's end, so that the window
// holds each of them for 60 seconds after its last possible use. The
// answer holds three integers per request: the slots granted, the count
// after them, and the milliseconds until the window's oldest request
// leaves it; then the stamp of the leases' slots.
var batchScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local win = tonumber(ARGV[1])
local leased = now + tonumber(ARGV[2])
local seen = {}
local out = {}
for i, key in ipairs(KEYS) do
  local back = tonumber(ARGV[4 * i + 2])
  if back > 0 then redis.call('LREM', key, -back, ARGV[4 * i + 1]) end
end
for i, key in ipairs(KEYS) do
  local s = seen[key]
  if not s then
    local gone, oldest = 0, 0
    while true do
      local head
      if gone == 0 then head = redis.call('LRANGE', key, '0', '7')
      else head = redis.call('LRANGE', key, gone, gone + 7) end
      local j = 1
      while j <= #head and tonumber(head[j]) <= now - win do j = j + 1 end
      gone = gone + j - 1
      if j <= #head then oldest = tonumber(head[j]) break end
      if #head < 8 then break end
    end
    if gone > 0 then redis.call('LTRIM', key, gone, -1) end
    s = {count = redis.call('LLEN', key), add = 0, lease = 0, oldest = oldest}
    seen[key] = s
  end
  local limit = tonumber(ARGV[4 * i - 1])
  local granted = 0
  if s.count < limit then
    granted = math.min(math.max(1, tonumber(ARGV[4 * i])), math.max(1, limit - math.floor(limit / 4) - s.count))
    s.count = s.count + granted
    s.add = s.add + 1
    s.lease = s.lease + granted - 1
  end
  out[3 * i - 2] = granted
  out[3 * i - 1] = s.count
end
local function push(key, stamp, n)
  local stamps = {}
  for j = 1, math.min(n, 1000) do stamps[j] = stamp end
  while n > 0 do
    local m = math.min(n, 1000)
    redis.call('RPUSH', key, unpack(stamps, 1, m))
    n = n - m
  end
end
for key, s in pairs(seen) do
  if s.add > 0 then
    push(key, string.format('%d', now), s.add)
    push(key, string.format('%d', leased), s.lease)
    redis.call('PEXPIRE', key, win + tonumber(ARGV[2]))
    if s.oldest == 0 then s.oldest = now end
  end
  if s.oldest > 0 then s.left = math.max(s.oldest + win - now, 0) else s.left = 0 end
end
for i, key in ipairs(KEYS) do
  out[3 * i] = seen[key].left
end
out[3 * #KEYS + 1] = leased
return out
`)

// maxBatch bounds the requests decided by one script call, so that one
// call never holds Redis long.
const maxBatch = 256

// senders is the number of batches in flight at once: while one batch is
// on its round trip, the requests arriving gather into the next.
const senders = 2

var errClosed = errors.New("redis rate limit: limiter closed")

// call is one request waiting for its batch.
type call struct {
	key      string
	limit    int
	want     int     // slots asked: 1, more for a lease
	giveBack unspent // an ended lease's unspent slots, given back first
	now      time.Time
	queued   time.Time // monotonic; the request gives up timeout after it
	d        Decision
	granted  int   // slots granted, the request's own included
	count    int   // the window's count after them
	stamp    int64 // Redis's stamp of a lease's slots
	err      error
	// state says who owns the call once it is queued: the request while
	// waiting; the sender once it decided it (then it tells decided), or
	// once the request gave up waiting (then the sender settles it).
	state   atomic.Int32
	decided chan struct{}
	timer   *time.Timer // the request's deadline
}

// The states of a queued call.
const (
	waiting int32 = iota
	answered
	abandoned
)

var calls = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &call{decided: make(chan struct{}, 1), timer: t}
}}

// reset clears c for its next use.
func (c *call) reset() {
	c.key, c.giveBack, c.d, c.err = "", unspent{}, Decision{}, nil
	c.granted, c.count, c.stamp = 0, 0, 0
	c.state.Store(waiting)
}

// batcher sends the requests that arrive while a round trip is in flight
// as one script call: one write and one read, and one script run, for
// them all.
type batcher struct {
	r     *Redis
	queue chan *call
	quit  chan struct{}
	wg    sync.WaitGroup
}

func newBatcher(r *Redis) *batcher {
	b := &batcher{r: r, queue: make(chan *call, 4*maxBatch), quit: make(chan struct{})}
	b.wg.Add(senders)
	for range senders {
		go b.send()
	}
	return b
}

func (b *batcher) close() {
	close(b.quit)
	b.wg.Wait()
}

// answer is a batch's answer to one request.
type answer struct {
	d       Decision
	granted int   // slots granted, the request's own included
	count   int   // the window's count after them
	stamp   int64 // Redis's stamp of the slots beyond the first
}

// decide queues one request asking for want slots (giving back the
// slots of bk first) and waits for its batch's answer, until its own
// deadline (the timeout after queueing). A request that gives up leaves
// its call to the sender, which settles what Redis may still grant it.
func (b *batcher) decide(key string, limit, want int, bk unspent, now time.Time) (answer, error) {
	c := calls.Get().(*call)
	c.key, c.limit, c.want, c.giveBack, c.now, c.queued = key, limit, max(want, 1), bk, now, time.Now()
	select {
	case b.queue <- c:
	case <-b.quit:
		b.r.notGivenBack.Add(int64(bk.n))
		return answer{}, errClosed
	}
	c.timer.Reset(time.Until(c.queued.Add(b.r.timeout)))
	select {
	case <-c.decided:
		c.timer.Stop()
	case <-c.timer.C:
		if c.state.CompareAndSwap(waiting, abandoned) {
			return answer{}, fmt.Errorf("redis rate limit: no answer within %v", b.r.timeout)
		}
		<-c.decided // answered meanwhile
	case <-b.quit:
		c.timer.Stop()
		if c.state.CompareAndSwap(waiting, abandoned) {
			return answer{}, errClosed
		}
		<-c.decided
	}
	a, err := answer{d: c.d, granted: c.granted, count: c.count, stamp: c.stamp}, c.err
	c.reset()
	calls.Put(c)
	return a, err
}

// send takes a request, adds every request queued meanwhile, and decides
// them in one round trip, until the batcher closes.
func (b *batcher) send() {
	defer b.wg.Done()
	batch := make([]*call, 0, maxBatch)
	live := make([]*call, 0, maxBatch)
	for {
		select {
		case c := <-b.queue:
			batch = append(batch[:0], c)
		case <-b.quit:
			return
		}
	gather:
		for len(batch) < maxBatch {
			select {
			case c := <-b.queue:
				batch = append(batch, c)
			default:
				break gather
			}
		}
		b.run(batch, live)
		for i, c := range batch {
			if c.err != nil {
				// The slots it was to give back stay counted until they
				// leave the window (the script may not have run).
				b.r.notGivenBack.Add(int64(c.giveBack.n))
			}
			if c.state.CompareAndSwap(waiting, answered) {
				c.decided <- struct{}{}
			} else {
				b.settle(c)
			}
			batch[i] = nil
		}
	}
}

// settle ends a call whose request gave up waiting: the lease slots
// Redis granted it beyond its own are given back with the ended leases'
// (its own slot stays spent: the request was decided by the fallback).
func (b *batcher) settle(c *call) {
	if c.err == nil && c.granted > 1 {
		b.r.strand(c.key, unspent{stamp: c.stamp, n: c.granted - 1})
	}
	c.reset()
	calls.Put(c)
}

// run decides batch, answering each call. A request waits for its answer
// no longer than the timeout of its queueing (see decide): one that
// waited past it in the queue fails without being sent, and the round
// trip's deadline is the newest sent's, so that the requests that still
// have time get their answers while an older one gives up alone.
func (b *batcher) run(batch []*call, live []*call) {
	timeout := b.r.timeout
	start := time.Now()
	live = live[:0]
	for _, c := range batch {
		if start.Sub(c.queued) >= timeout {
			c.err = fmt.Errorf("redis rate limit: no answer within %v", timeout)
		} else {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return
	}
	newest := live[0].queued
	for _, c := range live[1:] {
		if c.queued.After(newest) {
			newest = c.queued
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), newest.Add(timeout))
	defer cancel()
	keys := make([]string, len(live))
	args := make([]any, 2+4*len(live))
	args[0], args[1] = Window.Milliseconds(), leaseMS(b.r.leaseFor)
	for i, c := range live {
		keys[i] = b.r.windowKey(c.key)
		args[2+4*i], args[3+4*i], args[4+4*i], args[5+4*i] = c.limit, c.want, c.giveBack.stamp, c.giveBack.n
	}
	res, err := batchScript.Run(ctx, b.r.client, keys, args...).Int64Slice()
	if err == nil && len(res) != 3*len(live)+1 {
		err = fmt.Errorf("%d answers for %d requests", len(res), len(live))
	}
	if err != nil {
		err = fmt.Errorf("redis rate limit: %w", err)
		for _, c := range live {
			c.err = err
		}
		return
	}
	stamp := res[3*len(live)]
	for i, c := range live {
		c.granted, c.count, c.stamp = int(res[3*i]), int(res[3*i+1]), stamp
		used := c.count - max(c.granted-1, 0) // a lease's slots are not spent yet
		c.d = Decision{Allowed: c.granted > 0, Limit: c.limit, Remaining: max(c.limit-used, 0), Used: used,
			Reset: c.now.Add(time.Duration(res[3*i+2]) * time.Millisecond)}
	}
}
