package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

var _ Limiter = (*Redis)(nil)

// peekScript reads a key's window (see batchScript) without changing it:
// the count of its requests in the window, and the milliseconds until the
// oldest leaves it.
var peekScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local win = tonumber(ARGV[1])
local gone = 0
while true do
  local head = redis.call('LRANGE', KEYS[1], gone, gone + 7)
  for j = 1, #head do
    local ms = tonumber(head[j])
    if ms > now - win then return {redis.call('LLEN', KEYS[1]) - gone - j + 1, ms + win - now} end
  end
  if #head < 8 then return {0, 0} end
  gone = gone + 8
end
`)

// Redis keeps one rolling window per key in Redis (see batchScript), shared by
// every instance that uses the same server and prefix. The requests that
// arrive while a round trip is in flight go together in the next one, a
// single script call deciding them in order (see batchScript). A key that Redis
// refused is refused locally until its reset time, without a round trip:
// a refused request does not count, so the window cannot free a slot
// before the oldest request leaves it, on any instance; but a lease can
// give unspent slots back, so a key that leases is refused locally for two
// leases' time at most.
//
// A key of a high limit asked often leases slots of its budget for a
// moment and spends them without a round trip (see lease.go).
//
// Its clocks. The windows must be stamped and trimmed on Redis's clock
// (TIME, in the scripts): it is the one every instance shares, and the
// exactness argument is made on it (docs/architecture.md). The time a
// call is given dates its answer (Reset) and the local refusal that
// follows from it, as for Local. Every other decision by time (may a
// leased slot still be spent, is a lease's time up, is a lease idle)
// reads now at the moment it decides. A round trip's deadline is on the
// real clock: it is waited for with a timer.
type Redis struct {
	client        *redis.Client
	prefix        string
	timeout       time.Duration
	leaseFor      time.Duration
	now           func() time.Time // time.Now but in tests
	batch         *batcher
	refused       sync.Map     // key -> refusal: over the limit until reset
	localRefusals atomic.Int64 // requests refused without asking Redis

	leases       sync.Map // key -> *lease
	leased       atomic.Int64
	notGivenBack atomic.Int64 // unspent slots not given back
	heldMu       sync.Mutex   // guards heldLeases and strays
	heldLeases   []*lease     // the leases holding slots
	strays       []stray      // granted to requests that gave up: to give back

	stop     chan struct{} // closes the returns
	returned chan struct{} // closed when the returns are done
	closing  sync.Once
	closeErr error
}

// refusal is a key's last refusal by Redis.
type refusal struct {
	limit int
	used  int
	reset time.Time
	until time.Time // refused locally until then: reset, or sooner for a key that leases
}

// RedisOptions configure a Redis limiter.
type RedisOptions struct {
	URL     string        // redis://host:port/db
	Prefix  string        // key prefix; instances sharing a budget share it
	Timeout time.Duration // per decision; past it the caller falls back
}

// NewRedis connects to Redis; it does not fail when Redis is down (the
// fallback covers that), only when the URL is wrong.
func NewRedis(o RedisOptions) (*Redis, error) {
	return newRedis(o, leaseFor, leaseFor/4, time.Now)
}

// newRedis makes a limiter whose leases last leaseTime on the clock now,
// their unspent slots given back every returnEvery.
func newRedis(o RedisOptions, leaseTime, returnEvery time.Duration, now func() time.Time) (*Redis, error) {
	opt, err := redis.ParseURL(o.URL)
	if err != nil {
		return nil, fmt.Errorf("redis URL: %w", err)
	}
	if o.Timeout <= 0 {
		o.Timeout = 100 * time.Millisecond
	}
	opt.DialTimeout = 4 * o.Timeout
	opt.ReadTimeout = o.Timeout
	opt.WriteTimeout = o.Timeout
	opt.MaxRetries = 0
	opt.ContextTimeoutEnabled = true // a batch's deadline is its newest request's (see batcher.run)
	opt.PoolSize = 64
	opt.PoolTimeout = o.Timeout
	r := &Redis{client: redis.NewClient(opt), prefix: o.Prefix, timeout: o.Timeout, leaseFor: leaseTime, now: now,
		stop: make(chan struct{}), returned: make(chan struct{})}
	r.batch = newBatcher(r)
	go r.returns(returnEvery)
	return r, nil
}

// windowKey is the Redis key of key's window. Windows were sorted sets
// under "rl:"; a list under its own name lets instances of both kinds run
// side by side during an upgrade (each kind then keeps its own budget).
func (r *Redis) windowKey(key string) string { return r.prefix + "rw:" + key }

// Close stops the batches, gives back the slots leases hold and closes
// the connections; a decision asked afterwards fails. Closing again
// does nothing.
func (r *Redis) Close() error {
	r.closing.Do(func() {
		r.batch.close() // no lease is granted after this
		close(r.stop)
		<-r.returned
		r.closeErr = r.client.Close()
	})
	return r.closeErr
}

// Ping checks that Redis answers and loads the script, so that the first
// decision costs one round trip like every other.
func (r *Redis) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := r.client.Ping(ctx).Err(); err != nil {
		return err
	}
	if err := batchScript.Load(ctx, r.client).Err(); err != nil {
		return err
	}
	if err := returnScript.Load(ctx, r.client).Err(); err != nil {
		return err
	}
	return peekScript.Load(ctx, r.client).Err()
}

// LocalRefusals counts the requests refused without asking Redis.
func (r *Redis) LocalRefusals() int64 { return r.localRefusals.Load() }

// refusedUntil answers for a key that Redis refused and whose reset time
// has not come.
func (r *Redis) refusedUntil(key string, limit int, now time.Time) (Decision, bool) {
	v, ok := r.refused.Load(key)
	if !ok {
		return Decision{}, false
	}
	f := v.(*refusal)
	if f.limit != limit || !now.Before(f.until) {
		return Decision{}, false
	}
	return Decision{Limit: limit, Used: f.used, Reset: f.reset}, true
}

// Sweep forgets the refusals whose reset time has passed and the leases
// of idle keys.
func (r *Redis) Sweep(now time.Time) {
	r.sweepLeases()
	r.refused.Range(func(k, v any) bool {
		if !now.Before(v.(*refusal).until) {
			r.refused.CompareAndDelete(k, v)
		}
		return true
	})
}

// Allow spends one request of key's budget: from a lease's slots when
// it holds any, else in Redis, in the next batch.
func (r *Redis) Allow(_ context.Context, key string, limit int, now time.Time) (Decision, error) {
	var l *lease
	var ask slotAsk
	if limit >= 2*leaseShare {
		l = r.leaseOf(key)
		d, ok, a, gone := l.take(limit, r.leaseFor, r.now)
		for gone { // swept meanwhile: the map holds a new one, or will
			l = r.leaseOf(key)
			d, ok, a, gone = l.take(limit, r.leaseFor, r.now)
		}
		if ok {
			r.leased.Add(1)
			return d, nil
		}
		ask = a
		if ask.want == 0 {
			l = nil // another request of the key is asking for slots
		}
	}
	if d, ok := r.refusedUntil(key, limit, now); ok && ask.giveBack.n == 0 {
		if l != nil {
			l.done(r, limit, answer{}, errRefused)
		}
		r.localRefusals.Add(1)
		return d, nil
	}
	a, err := r.batch.decide(key, limit, ask.want, ask.giveBack, now)
	if l != nil {
		l.done(r, limit, a, err)
	}
	if err != nil {
		return Decision{}, err
	}
	if !a.d.Allowed {
		f := &refusal{limit: limit, used: a.d.Used, reset: a.d.Reset, until: a.d.Reset}
		if limit >= 2*leaseShare {
			// Leases give slots back before the window frees them.
			if soon := now.Add(2 * r.leaseFor); soon.Before(f.until) {
				f.until = soon
			}
		}
		r.refused.Store(key, f)
	}
	return a.d, nil
}

// Peek reads key's budget in Redis without spending any of it.
func (r *Redis) Peek(ctx context.Context, key string, limit int, now time.Time) (Decision, error) {
	if d, ok := r.refusedUntil(key, limit, now); ok {
		return d, nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	res, err := peekScript.Run(ctx, r.client, []string{r.windowKey(key)}, Window.Milliseconds()).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("redis rate limit: %w", err)
	}
	if len(res) != 2 {
		return Decision{}, fmt.Errorf("redis rate limit: unexpected answer %v", res)
	}
	used := int(res[0])
	if v, ok := r.leases.Load(key); ok { // held here, not spent
		l := v.(*lease)
		l.mu.Lock()
		used = max(used-l.unspent(limit, r.now()), 0)
		l.mu.Unlock()
	}
	d := Decision{Allowed: used < limit, Limit: limit, Remaining: max(limit-used, 0), Used: used, Reset: now}
	if used > 0 {
		d.Reset = now.Add(time.Duration(res[1]) * time.Millisecond)
	}
	return d, nil
}
