//go:build race

package main

// raceEnabled tells whether the race detector is on: it makes the
// pure-Go SQLite driver about ten times slower.
const raceEnabled = true
