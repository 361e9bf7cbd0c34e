//go:build !race

package tracefile_test

const raceEnabled = false
