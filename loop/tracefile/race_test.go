//go:build race

package tracefile_test

// raceEnabled: the race detector slows reading about tenfold, so the huge
// files are smaller under it (TestHugeFilesInBoundedMemory).
const raceEnabled = true
