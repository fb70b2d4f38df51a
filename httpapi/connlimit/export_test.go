package connlimit

// MaxFor is maxFor, for tests.
var MaxFor = maxFor
