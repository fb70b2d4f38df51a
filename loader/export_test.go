package loader

import "context"

// SetHookAfterFlags sets the function a load runs between its read of the
// flags and its count of them (nil: none); a load in one message (on
// PostgreSQL) runs it once every read is done.
func SetHookAfterFlags(f func()) { testHookAfterFlags = f }

// Barrier passes the barrier before a load on primary as a woken load
// would, with each lock waited for at most 500 ms.
func Barrier(ctx context.Context, primary *DB) error {
	_, err := newSettler(primary, nil, newGate(0), func() {}, func(error, string, ...any) {}).barrier(ctx)
	return err
}
