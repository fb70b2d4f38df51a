package connlimit

import (
	"maps"
	"net/netip"
	"slices"
	"time"
)

// MaxFor is maxFor, for tests.
var MaxFor = maxFor

// FileLimit is fileLimit, for tests.
var FileLimit = fileLimit

// Addrs is how many client addresses l counts connections of.
func (l *Listener) Addrs() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.byAddr)
}

// PressureIdle is the idle time after which l closes a connection under
// pressure.
func (l *Listener) PressureIdle() time.Duration { return l.opt.PressureIdle }

// Groups are the client address groups l counts connections of.
func (l *Listener) Groups() []netip.Addr {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Collect(maps.Keys(l.byAddr))
}

// Within is within, for tests.
var Within = within
