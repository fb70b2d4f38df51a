package memstore

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"time"
)

// Store is the swap point between the loader and the HTTP layer: it holds
// the current snapshot and key set, each replaced by one atomic pointer
// store.
type Store struct {
	snap atomic.Pointer[Snapshot]
	keys atomic.Pointer[KeySet]

	mu    sync.Mutex // serialises swaps and guards hooks
	hooks map[*func(*Snapshot)]bool
}

// Snapshot returns the current snapshot, or nil before the first load.
func (st *Store) Snapshot() *Snapshot { return st.snap.Load() }

// SetSnapshot calls the OnSwap functions with s (unless nil), then swaps
// it in.
func (st *Store) SetSnapshot(s *Snapshot) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for fn := range st.hooks {
		if s != nil {
			(*fn)(s)
		}
	}
	st.snap.Store(s)
}

// OnSwap registers fn to be called with every snapshot before it is
// swapped in, so that what a reader derives from a snapshot is ready when
// the snapshot is. The returned function unregisters fn.
func (st *Store) OnSwap(fn func(*Snapshot)) (cancel func()) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.hooks == nil {
		st.hooks = map[*func(*Snapshot)]bool{}
	}
	key := &fn
	st.hooks[key] = true
	return func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		delete(st.hooks, key)
	}
}

// Keys returns the current key set, or nil before the first key load.
func (st *Store) Keys() *KeySet { return st.keys.Load() }

// SetKeys swaps in k.
func (st *Store) SetKeys(k *KeySet) { st.keys.Store(k) }

// Key is an API key on file, known by the SHA-256 hash of its secret.
type Key struct {
	ID    string
	Limit int // requests per minute; 0 means the service default
}

// KeySet is an immutable set of the active (not revoked) keys.
type KeySet struct {
	byHash   map[[sha256.Size]byte]Key
	LoadedAt time.Time
}

// NewKeySet indexes keys by their hash.
func NewKeySet(hashes [][sha256.Size]byte, keys []Key, loadedAt time.Time) *KeySet {
	ks := &KeySet{byHash: make(map[[sha256.Size]byte]Key, len(keys)), LoadedAt: loadedAt}
	for i, k := range keys {
		ks.byHash[hashes[i]] = k
	}
	return ks
}

// Len is the number of active keys.
func (ks *KeySet) Len() int { return len(ks.byHash) }

// Lookup finds the active key whose secret is token.
func (ks *KeySet) Lookup(token string) (Key, bool) {
	// A key fits the buffer: hashing it then allocates nothing (a
	// conversion of more than 32 bytes would).
	var buf [64]byte
	b := buf[:0]
	if len(token) > len(buf) {
		b = make([]byte, 0, len(token))
	}
	k, ok := ks.byHash[sha256.Sum256(append(b, token...))]
	return k, ok
}
