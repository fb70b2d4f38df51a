package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// The event types of /api/public/stream. More may come: Follow hands an
// event of another type over as it is, with its Data.
const (
	EventReady  = "ready"  // the stream is open; ID is the position from which events follow
	EventVotes  = "votes"  // followed flags' votes changed; Votes holds them
	EventResync = "resync" // missed events are lost: re-read what you show
	EventEnd    = "end"    // the server closes the stream next; End says why
)

// StreamEvent is one event of the live stream, as Follow hands it over.
type StreamEvent struct {
	// Type is one of the Event constants, or a type this package does not
	// know yet.
	Type string
	// ID is the stream's position after this event: the id Follow sends
	// as Last-Event-ID when it reconnects.
	ID string
	// Data is the event's data, one line of JSON.
	Data json.RawMessage
	// Votes is the data of a votes event, decoded; nil for other types.
	Votes *StreamVotes
	// End is the data of an end event, decoded; nil for other types.
	End *StreamEnd
}

// ErrRevoked is what Follow returns after an end event whose reason is
// revoked: the key no longer works, so it does not reconnect.
var ErrRevoked = errors.New("the stream ended: its key was revoked")

// RefusedError is an answer to opening the stream that Follow does not
// try again: a 4xx other than 429, or another status it cannot read as a
// stream. Problem is the answer's problem body, when it has one.
type RefusedError struct {
	StatusCode int
	Problem    *Problem
}

func (e *RefusedError) Error() string {
	if e.Problem != nil {
		return fmt.Sprintf("the stream was refused: %d %s: %s", e.StatusCode, e.Problem.Code, e.Problem.Detail)
	}
	return fmt.Sprintf("the stream was refused: %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// followConfig holds Follow's bounds; tests shorten them.
type followConfig struct {
	retry    time.Duration // the wait before reconnecting until the server sends its own
	maxDelay time.Duration // the longest wait between failed attempts in a row
	idle     time.Duration // a stream silent this long is taken as dead
	maxEvent int           // bytes one event may hold
	// wait waits d before the next attempt, or returns ctx's error.
	wait func(ctx context.Context, d time.Duration) error
}

var defaultFollow = followConfig{
	retry:    2 * time.Second,
	maxDelay: 30 * time.Second,
	idle:     45 * time.Second, // three times the server's 15 s ping
	maxEvent: 64 << 20,
	wait:     sleep,
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Follow reads /api/public/stream with params (the flags to follow;
// params may be nil) and calls handle with each event, in order, until
// ctx ends, handle returns an error, or the server refuses the stream for
// good; it returns that error (ctx.Err(), handle's error, ErrRevoked or a
// *RefusedError).
//
// When the stream closes, ends with a reason other than revoked, stays
// silent for 45 seconds (the server pings every 15), or cannot be opened
// (a network error, 429, 500, 502, 503 or 504), Follow opens it again
// after the server's retry interval (its retry field, 2 s by default), or
// the answer's Retry-After when that is longer, doubling the wait for
// each failed attempt in a row up to 30 s. It sends the last event's id
// as Last-Event-ID, so the server sends the events missed meanwhile, or a
// resync event when it no longer can: re-read what you show then.
//
// The client's HTTP doer must not time out whole requests (the default
// http.Client does not): a stream lasts as long as it is followed.
func (c *Client) Follow(ctx context.Context, params *StreamVotesParams, handle func(StreamEvent) error) error {
	return c.follow(ctx, params, handle, defaultFollow)
}

func (c *Client) follow(ctx context.Context, params *StreamVotesParams, handle func(StreamEvent) error, cfg followConfig) error {
	var p StreamVotesParams
	if params != nil {
		p = *params
	}
	lastID := ""
	if p.LastEventID != nil {
		lastID = *p.LastEventID
	}
	retry, failures := cfg.retry, 0
	for {
		if lastID != "" {
			id := lastID
			p.LastEventID = &id
		}
		o := c.open(ctx, &p, lastID, handle, cfg)
		if o.retry > 0 {
			retry = o.retry
		}
		lastID = o.lastID
		if o.err != nil {
			return o.err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		wait := retry
		if o.opened {
			failures = 0
		} else {
			failures++
			for i := 1; i < failures && wait < cfg.maxDelay; i++ {
				wait *= 2
			}
			wait = min(wait, cfg.maxDelay)
		}
		if err := cfg.wait(ctx, max(wait, o.retryAfter)); err != nil {
			return err
		}
	}
}

// opening is how one connection went.
type opening struct {
	opened     bool          // the server answered 200 with a stream
	lastID     string        // the position after the last event read
	retry      time.Duration // the server's retry field, 0 when it sent none
	retryAfter time.Duration // the answer's Retry-After, 0 when it had none
	err        error         // an error to return: no reconnecting
}

// open opens the stream once and reads it until it closes.
func (c *Client) open(ctx context.Context, p *StreamVotesParams, lastID string, handle func(StreamEvent) error, cfg followConfig) (o opening) {
	o.lastID = lastID
	connCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := time.AfterFunc(cfg.idle, cancel)
	defer idle.Stop()
	resp, err := c.StreamVotes(connCtx, p)
	if err != nil {
		return o // a network error: try again
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return refused(resp, o)
	}
	o.opened = true
	r := newSSEReader(resp.Body, cfg.maxEvent, lastID, func() { idle.Reset(cfg.idle) })
	defer func() { o.retry = r.retry }()
	for {
		ev, err := r.next()
		if err != nil {
			if errors.Is(err, errEventTooLarge) {
				o.err = err
			}
			return o // closed, cut, or silent too long: reconnect
		}
		o.lastID = ev.id
		se, err := decodeEvent(ev)
		if err != nil {
			o.err = err
			return o
		}
		if err := handle(se); err != nil {
			o.err = err
			return o
		}
		if se.Type == EventEnd {
			if se.End.Reason == Revoked {
				o.err = ErrRevoked
			}
			return o
		}
	}
}

// refused reads an answer other than 200: a status worth another try
// sets retryAfter from its Retry-After, any other is the error to return.
func refused(resp *http.Response, o opening) opening {
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			o.retryAfter = time.Duration(min(s, 3600)) * time.Second
		}
		return o
	}
	e := &RefusedError{StatusCode: resp.StatusCode}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var pr Problem
	if err == nil && json.Unmarshal(body, &pr) == nil && pr.Status != 0 {
		e.Problem = &pr
	}
	o.err = e
	return o
}

// decodeEvent decodes the data of the event types it knows.
func decodeEvent(ev sseEvent) (StreamEvent, error) {
	se := StreamEvent{Type: ev.typ, ID: ev.id, Data: json.RawMessage(ev.data)}
	switch ev.typ {
	case EventVotes:
		se.Votes = new(StreamVotes)
		if err := json.Unmarshal(ev.data, se.Votes); err != nil {
			return se, fmt.Errorf("the stream's votes event: %w", err)
		}
	case EventEnd:
		se.End = new(StreamEnd)
		if err := json.Unmarshal(ev.data, se.End); err != nil {
			return se, fmt.Errorf("the stream's end event: %w", err)
		}
	}
	return se, nil
}
