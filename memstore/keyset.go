package memstore

import (
	"crypto/sha256"
	"hash/maphash"
	"math/bits"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// Key is an API key on file, known by the SHA-256 hash of its secret.
type Key struct {
	ID    string
	Limit int // requests per minute; 0 means the service default
}

// KeySet is an immutable set of the active (not revoked) keys.
//
// It remembers the secrets it has seen used, in a table of its own, so
// that a key's next request is checked by a hash-table lookup and a
// constant-time comparison instead of SHA-256 (which was 4 % of a
// request's instructions). The table holds only secrets whose hash is in
// the set, at most four a set of slots and never replaced, so it is
// bounded by its size (twice the keys, rounded up to a power of two,
// 64 to 8,192 slots) and an unknown secret can neither fill nor evict it.
// A new key set starts with an empty table: a revoked key is refused as
// soon as the set without it is swapped in.
type KeySet struct {
	byHash   map[[sha256.Size]byte]Key
	ids      map[string]struct{}
	LoadedAt time.Time

	seed  maphash.Seed
	shift uint // a hash's top bits choose its set of seen slots
	seen  []seenSlot
}

// seenSlot is one slot of the seen table: its entry, and the entry's hash
// beside it, so that a lookup passes the other entries of a set without
// reading them (each one a cache miss under load). The hash is stored
// after the entry, and a lookup trusts neither: it reads the entry when
// the hash is the token's, and compares the secret.
type seenSlot struct {
	hash atomic.Uint64
	e    atomic.Pointer[seenKey]
}

// seenKey is a secret a request presented and the key it belongs to. The
// secret's bytes are in text when they fit, so a lookup reads one object,
// not two. The key is the set's own: a Key that Lookup returns shares no
// memory with the secret, so whoever keeps its ID (the limiter's windows,
// the streams) keeps no secret alive.
type seenKey struct {
	hash   uint64 // maphash of secret, under the set's seed
	secret string
	key    Key
	text   [64]byte
}

// newSeenKey is the entry of secret, of hash h, for k.
func newSeenKey(h uint64, secret string, k Key) *seenKey {
	e := &seenKey{hash: h, key: k}
	if len(secret) == 0 || len(secret) > len(e.text) {
		e.secret = strings.Clone(secret)
		return e
	}
	n := copy(e.text[:], secret)
	e.secret = unsafe.String(&e.text[0], n)
	return e
}

// seenWays is the number of slots of one set of the seen table.
const seenWays = 4

// NewKeySet indexes keys by their hash.
func NewKeySet(hashes [][sha256.Size]byte, keys []Key, loadedAt time.Time) *KeySet {
	ks := &KeySet{byHash: make(map[[sha256.Size]byte]Key, len(keys)), ids: make(map[string]struct{}, len(keys)),
		LoadedAt: loadedAt, seed: maphash.MakeSeed()}
	for i, k := range keys {
		ks.byHash[hashes[i]] = k
		ks.ids[k.ID] = struct{}{}
	}
	slots := 1 << bits.Len(uint(min(max(2*len(keys), 64), 8192)-1))
	ks.seen = make([]seenSlot, slots)
	ks.shift = uint(64 - bits.Len(uint(slots/seenWays)-1))
	return ks
}

// HasID reports whether the key with this id is active.
func (ks *KeySet) HasID(id string) bool {
	_, ok := ks.ids[id]
	return ok
}

// Len is the number of active keys.
func (ks *KeySet) Len() int { return len(ks.byHash) }

// Lookup finds the active key whose secret is token.
func (ks *KeySet) Lookup(token string) (Key, bool) {
	h := maphash.String(ks.seed, token)
	set := ks.seen[(h>>ks.shift)*seenWays:][:seenWays]
	for i := range set {
		if set[i].hash.Load() != h {
			continue
		}
		if e := set[i].e.Load(); e != nil && e.hash == h && sameSecret(e.secret, token) {
			return e.key, true
		}
	}
	// A key fits the buffer: hashing it then allocates nothing (a
	// conversion of more than 32 bytes would).
	var buf [64]byte
	b := buf[:0]
	if len(token) > len(buf) {
		b = make([]byte, 0, len(token))
	}
	k, ok := ks.byHash[sha256.Sum256(append(b, token...))]
	if !ok {
		return Key{}, false
	}
	// Into the set's first free slot, unless a lookup at the same time put
	// it in first: slots are never emptied nor replaced, so all see them
	// filled in the same order, and no secret is held twice.
	var e *seenKey
	for i := range set {
		old := set[i].e.Load()
		if old == nil {
			if e == nil {
				e = newSeenKey(h, token, k)
			}
			if set[i].e.CompareAndSwap(nil, e) {
				set[i].hash.Store(h)
				break
			}
			old = set[i].e.Load()
		}
		if old.hash == h && sameSecret(old.secret, token) {
			break
		}
	}
	return k, true
}

// sameSecret reports whether a and b are equal in a time that depends on
// their length alone, as crypto/subtle.ConstantTimeCompare, without
// converting either to a slice (which would allocate).
func sameSecret(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := 0; i < len(a); i++ {
		v |= a[i] ^ b[i]
	}
	return v == 0
}
