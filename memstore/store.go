package memstore

import (
	"sync"
	"sync/atomic"
)

// Store is the swap point between the loader and the HTTP layer: it holds
// the current snapshot and key set, each replaced by one atomic pointer
// store.
type Store struct {
	snap atomic.Pointer[Snapshot]
	keys atomic.Pointer[KeySet]

	mu     sync.Mutex // serialises snapshot swaps and guards their hooks
	before hooks[*Snapshot]
	after  hooks[*Snapshot]
	// keyMu does the same for key sets, so a key swap never waits behind
	// a snapshot's hooks.
	keyMu   sync.Mutex
	keyHook hooks[*KeySet]
}

// hooks are functions registered with a Store, called under its lock.
type hooks[T any] map[*func(T)]bool

// add registers fn in *h under mu; the returned function unregisters it.
func (h *hooks[T]) add(mu *sync.Mutex, fn func(T)) (cancel func()) {
	mu.Lock()
	defer mu.Unlock()
	if *h == nil {
		*h = hooks[T]{}
	}
	key := &fn
	(*h)[key] = true
	return func() {
		mu.Lock()
		defer mu.Unlock()
		delete(*h, key)
	}
}

func (h hooks[T]) call(v T) {
	for fn := range h {
		(*fn)(v)
	}
}

// Snapshot returns the current snapshot, or nil before the first load.
func (st *Store) Snapshot() *Snapshot { return st.snap.Load() }

// SetSnapshot calls the OnSwap functions with s (unless nil), swaps it in,
// then calls the OnSwapped functions with it.
func (st *Store) SetSnapshot(s *Snapshot) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s != nil {
		st.before.call(s)
	}
	st.snap.Store(s)
	if s != nil {
		st.after.call(s)
	}
}

// OnSwap registers fn to be called with every snapshot before it is
// swapped in, so that what a reader derives from a snapshot is ready when
// the snapshot is. The returned function unregisters fn.
func (st *Store) OnSwap(fn func(*Snapshot)) (cancel func()) { return st.before.add(&st.mu, fn) }

// OnSwapped registers fn to be called with every snapshot once it is
// swapped in, one snapshot at a time and in order, so that what fn tells
// others about it is already what every reader sees (the live stream's
// events). fn should be quick: the next swap waits for it. The returned
// function unregisters fn.
func (st *Store) OnSwapped(fn func(*Snapshot)) (cancel func()) { return st.after.add(&st.mu, fn) }

// Keys returns the current key set, or nil before the first key load.
func (st *Store) Keys() *KeySet { return st.keys.Load() }

// SetKeys swaps in k, then calls the OnKeys functions with it (unless
// nil).
func (st *Store) SetKeys(k *KeySet) {
	st.keyMu.Lock()
	defer st.keyMu.Unlock()
	st.keys.Store(k)
	if k != nil {
		st.keyHook.call(k)
	}
}

// OnKeys registers fn to be called with every key set once it is swapped
// in, one at a time and in order, so that what holds a key learns of its
// revocation at once. A key set swapped in while fn is registered is
// therefore seen either by fn or by a Keys call made after registering.
// The returned function unregisters fn.
func (st *Store) OnKeys(fn func(*KeySet)) (cancel func()) { return st.keyHook.add(&st.keyMu, fn) }
