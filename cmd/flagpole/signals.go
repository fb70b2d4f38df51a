package main

import (
	"context"
	"os"
	"syscall"
)

// signalsKey is the context key under which main hands the process's
// signals (SIGINT, SIGTERM, SIGHUP) to the commands. Tests that run a
// command in the process hand it a channel of their own, or none.
type signalsKey struct{}

// withSignals is ctx carrying the channel of the process's signals.
func withSignals(ctx context.Context, sigs <-chan os.Signal) context.Context {
	return context.WithValue(ctx, signalsKey{}, sigs)
}

// signalsOf is the channel of signals ctx carries, nil when none: then
// only ctx's end stops a command.
func signalsOf(ctx context.Context) <-chan os.Signal {
	sigs, _ := ctx.Value(signalsKey{}).(<-chan os.Signal)
	return sigs
}

// isReload reports whether s asks a running serve to read its
// configuration again.
func isReload(s os.Signal) bool { return s == syscall.SIGHUP }

// stopOnSignal is ctx ended by the first signal: how every command but
// serve stops (serve drains first, see followSignals).
func stopOnSignal(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	sigs := signalsOf(ctx)
	if sigs == nil {
		return ctx, cancel
	}
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// followSignals routes the process's signals to serve until ctx ends, and
// is how serve stops: cancel ends ctx, and with it the start, or Run.
// While starting, a stop signal (SIGINT, SIGTERM) stops at once; nothing
// is served yet. Once serving (p arrives on started), the first one
// begins the drain (p.drain: /readyz 503, the API still answering) and
// cancel follows shutdown_delay later; a second one, or SIGINT when a
// person at a terminal sent it, cancels at once. SIGHUP re-reads the
// configuration (p.reload); while starting it is ignored.
func followSignals(ctx context.Context, cancel context.CancelFunc, sigs <-chan os.Signal, started <-chan *program, atTerminal bool) {
	var p *program
	var delay <-chan struct{}
	for {
		select {
		case <-ctx.Done():
			return
		case p = <-started:
			started = nil
		case <-delay:
			p.log.Info("shutdown_delay is over")
			cancel()
			return
		case s := <-sigs:
			switch {
			case isReload(s) && p == nil:
				continue // the start reads the file as it is now
			case isReload(s):
				p.reload()
			case p == nil:
				cancel()
				return
			case delay != nil || (s == os.Interrupt && atTerminal):
				p.log.Info("stopping now: the shutdown delay is skipped", "signal", s.String())
				cancel()
				return
			default:
				delay = p.drain(s)
			}
		}
	}
}
