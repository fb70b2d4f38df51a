package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// A key's window is a Redis list of the Unix milliseconds (Redis's clock)
// of its requests, oldest first: its length is the count, its head the
// oldest, and requests leave it from the head. A list costs no hashing of
// members and no conversion of scores from and to floating point, which
// took most of Redis's time with a sorted set.

// batchScript decides a batch of requests in one call, in order, on
// Redis's own clock: KEYS[i] is request i's window, ARGV[1] the window in
// milliseconds and ARGV[1+i] request i's limit. Each window is trimmed and
// counted once per batch and appended to once; the count follows the
// batch's own additions, so requests for one key inside a batch are
// decided one after the other exactly as separate calls would be. The
// answer holds three integers per request: allowed, the count after it,
// and the milliseconds until the window's oldest request leaves it.
var batchScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local win = tonumber(ARGV[1])
local seen = {}
local out = {}
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
    s = {count = redis.call('LLEN', key), add = 0, oldest = oldest}
    seen[key] = s
  end
  local allowed = 0
  if s.count < tonumber(ARGV[1 + i]) then
    s.count = s.count + 1
    s.add = s.add + 1
    allowed = 1
  end
  out[3 * i - 2] = allowed
  out[3 * i - 1] = s.count
end
local stamp = string.format('%d', now)
for key, s in pairs(seen) do
  if s.add > 0 then
    local stamps = {}
    for j = 1, s.add do stamps[j] = stamp end
    redis.call('RPUSH', key, unpack(stamps))
    redis.call('PEXPIRE', key, ARGV[1])
    if s.oldest == 0 then s.oldest = now end
  end
  if s.oldest > 0 then s.left = s.oldest + win - now else s.left = 0 end
end
for i, key in ipairs(KEYS) do
  out[3 * i] = seen[key].left
end
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
	key     string
	limit   int
	now     time.Time
	queued  time.Time // monotonic; the request gives up timeout after it
	d       Decision
	err     error
	decided chan struct{}
}

var calls = sync.Pool{New: func() any { return &call{decided: make(chan struct{}, 1)} }}

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

// decide queues one request and waits for its batch's answer.
func (b *batcher) decide(key string, limit int, now time.Time) (Decision, error) {
	c := calls.Get().(*call)
	c.key, c.limit, c.now, c.queued = key, limit, now, time.Now()
	select {
	case b.queue <- c:
	case <-b.quit:
		return Decision{}, errClosed
	}
	select {
	case <-c.decided:
	case <-b.quit:
		return Decision{}, errClosed // c may still be answered: not reused
	}
	d, err := c.d, c.err
	c.d, c.err, c.key = Decision{}, nil, ""
	calls.Put(c)
	return d, err
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
			c.decided <- struct{}{}
			batch[i] = nil
		}
	}
}

// run decides batch, answering each call. Every request is answered
// within the timeout of its queueing: one that waited past it fails
// without being sent, and the round trip's deadline is the oldest sent's.
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
	oldest := live[0].queued
	for _, c := range live[1:] {
		if c.queued.Before(oldest) {
			oldest = c.queued
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), oldest.Add(timeout))
	defer cancel()
	keys := make([]string, len(live))
	args := make([]any, 1+len(live))
	args[0] = Window.Milliseconds()
	for i, c := range live {
		keys[i] = b.r.windowKey(c.key)
		args[1+i] = c.limit
	}
	res, err := batchScript.Run(ctx, b.r.client, keys, args...).Int64Slice()
	if err == nil && len(res) != 3*len(live) {
		err = fmt.Errorf("%d answers for %d requests", len(res), len(live))
	}
	if err != nil {
		err = fmt.Errorf("redis rate limit: %w", err)
		for _, c := range live {
			c.err = err
		}
		return
	}
	for i, c := range live {
		used := int(res[3*i+1])
		c.d = Decision{Allowed: res[3*i] == 1, Limit: c.limit, Remaining: max(c.limit-used, 0), Used: used,
			Reset: c.now.Add(time.Duration(res[3*i+2]) * time.Millisecond)}
	}
}
