//go:build !unix

package connlimit

// fileLimit is unknown on this system.
func fileLimit() int { return 0 }
