//go:build race

package sqlstore

// raceEnabled says the test binary was built with -race (measurements mean nothing then).
const raceEnabled = true
